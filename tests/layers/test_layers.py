"""Imports point down the layers only, and no package has an internal cycle (DESIGN
§10), checked on the source: every `import codreamer.…` in every module, those inside
functions too (a lazy import is still a dependency); only `if TYPE_CHECKING:` blocks
are left out (annotations)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO

PACKAGE = REPO / "codreamer"

# Lowest first. A module may import from its own layer and the layers below it.
LAYERS: list[set[str]] = [
    {
        "errors",
        "models",
        "config",
        "logs",
        "retry_after",
        "safe_json",
        "tracing",
        "preflight",
        "leads",
        "registry",
        "run_settings",
    },
    {"graph", "llm", "store"},
    {"loaders"},
    {"agent"},
    {"judge", "train"},
    {"loop"},
    {"webhooks"},
    {"runs"},
    {"api"},
    {"commands", "cli"},
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _top(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "codreamer" or len(parts) < 2:
        return None
    return parts[1]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[str]:
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(a.name for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        me = rel.parts[0].removesuffix(".py")
        if me == "__init__":
            continue
        for module in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if module == "web" or module.startswith("web."):
                edges.setdefault((me, "web"), []).append(str(rel))
            other = _top(module)
            if other is not None and other != me:
                edges.setdefault((me, other), []).append(str(rel))
    return edges


def test_every_package_has_a_layer() -> None:
    names = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if p.name != "__init__.py"}
    names = {n for n in names if not n.startswith(("_", "."))}
    assert names <= set(RANK), f"give these a layer: {sorted(names - set(RANK))}"


def test_imports_point_down() -> None:
    upward = {
        (a, b): files
        for (a, b), files in _edges().items()
        if b != "web" and RANK.get(b, -1) > RANK.get(a, 99)
    }
    assert not upward, f"imports pointing up the layers: {upward}"


def _module(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _module_graph() -> dict[str, set[str]]:
    """Module -> the codreamer modules it imports (an `import a.b.c` of a name inside
    a module counts as importing that module)."""
    modules = {_module(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for module in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            while module and module not in modules:
                module = module.rpartition(".")[0]
            if module and module != name:
                deps.add(module)
        graph[name] = deps
    return graph


def _cycles_within_packages(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """Every elementary cycle among the modules of one package (a package's modules
    and its subpackages' modules share the package's top-level name)."""
    found: set[frozenset[str]] = set()

    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    def walk(start: str, node: str, path: list[str], on_path: set[str]) -> None:
        for nxt in graph.get(node, ()):
            if package(nxt) != package(start) or nxt < start:
                continue  # each cycle is found once, from its smallest module
            if nxt == start:
                found.add(frozenset(path))
            elif nxt not in on_path and len(path) < 8:
                on_path.add(nxt)
                walk(start, nxt, [*path, nxt], on_path)
                on_path.discard(nxt)

    for start in sorted(graph):
        walk(start, start, [start], {start})
    return found


def test_no_package_has_an_internal_cycle() -> None:
    cycles = sorted(sorted(c) for c in _cycles_within_packages(_module_graph()))
    assert not cycles, f"import cycles inside a package: {cycles}"


def test_the_cycle_check_sees_a_cycle() -> None:
    graph = {"codreamer.a.x": {"codreamer.a.y"}, "codreamer.a.y": {"codreamer.a.x"}}
    graph |= {"codreamer.b.z": {"codreamer.a.x"}}
    assert _cycles_within_packages(graph) == {frozenset({"codreamer.a.x", "codreamer.a.y"})}


def test_the_backend_imports_nothing_of_the_dashboard_but_through_the_cli() -> None:
    """`api/` never imports `web` (the dashboard deploys on its own); only the CLI's
    `codreamer web`/`serve` commands start it."""
    offenders = {k: v for k, v in _edges().items() if k[1] == "web" and k[0] != "commands"}
    assert not offenders, offenders


def test_the_dashboard_imports_nothing_of_the_backend() -> None:
    for path in sorted((REPO / "web").rglob("*.py")):
        for module in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            assert not module.startswith("codreamer"), f"{path}: imports {module}"


def test_the_local_api_imports_no_broker_client() -> None:
    """Without CODREAMER_BROKER_URL, building the API loads neither Celery nor Redis."""
    code = (
        "import sys\n"
        "from codreamer.config import Settings\n"
        "from codreamer.api.app import create_app\n"
        "create_app(Settings(broker_url=None))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'celery', 'kombu', 'redis'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
