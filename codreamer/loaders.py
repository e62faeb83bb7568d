"""The I/O edge for data files: graphs and scenarios from disk.

The pure core (graph, agent, judge) never opens files; commands and the loop
call these. Every error names the file at fault.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from codreamer.errors import DataFileError, JSONInputError, ScenarioError
from codreamer.graph.store import GraphStore
from codreamer.models import Scenario
from codreamer.safe_json import parse_json

if TYPE_CHECKING:
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore


def read_json_file(path: Path | str, what: str = "file") -> Any:
    """Parse a JSON file with the API's own parser (codreamer/safe_json.py), or raise
    DataFileError naming it: missing, unreadable, or not JSON (with line and column)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise DataFileError(f"{what} {str(p)!r} not found") from None
    except IsADirectoryError:
        raise DataFileError(f"{what} {str(p)!r} is a directory, not a file") from None
    except OSError as exc:
        raise DataFileError(f"{what} {str(p)!r} cannot be read: {exc.strerror or exc}") from None
    try:
        return parse_json(data)
    except JSONInputError as exc:
        raise DataFileError(f"{what} {str(p)!r} is {exc}") from None


def load_graph(path: Path | str, max_nodes: int | None = None) -> GraphStore:
    """Load and validate a graph file: a list of nodes, `{"nodes": [...]}`, or a whole
    POST /learn-loop body (`{"graph": [...], ...}`), so the README's request files
    work with `graph validate` and `learn-loop --graph` too. Raises DataFileError or
    GraphValidationError."""

    data = read_json_file(path, "graph file")
    return GraphStore.from_json(data, max_nodes=max_nodes)


def _scenario_from(raw: Any, where: str) -> Scenario:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: a scenario must be a JSON object")
    try:
        return Scenario.model_validate(raw)
    except ValidationError as exc:
        parts = [
            f"{'.'.join(str(x) for x in err['loc']) or 'scenario'}: {err['msg']}"
            for err in exc.errors()
        ]
        raise ScenarioError(f"{where}: invalid scenario ({'; '.join(parts)})") from None


def load_scenarios(path: Path | str) -> list[Scenario]:
    """A scenarios file: a list of scenarios (or `{"scenarios": [...]}`, or one scenario)."""
    try:
        data = read_json_file(path, "scenarios file")
    except DataFileError as exc:
        raise ScenarioError(str(exc)) from None
    if isinstance(data, dict) and isinstance(data.get("scenarios"), list):
        data = data["scenarios"]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ScenarioError(f"scenarios file {str(path)!r}: expected a list of scenarios")
    scenarios = [_scenario_from(raw, f"{path} entry #{i}") for i, raw in enumerate(data)]
    seen: set[str] = set()
    for s in scenarios:
        if s.id in seen:
            raise ScenarioError(f"scenarios file {str(path)!r}: duplicate scenario id {s.id!r}")
        seen.add(s.id)
    return scenarios


def load_scenario_file(path: Path | str) -> Scenario:
    """One scenario from its own file (an object; a one-element list is accepted too)."""
    scenarios = load_scenarios(path)
    if not scenarios:
        raise ScenarioError(f"scenario file {str(path)!r} holds no scenario")
    return scenarios[0]


def resolve_scenario(arg: str | None, settings: Settings) -> Scenario:
    """DESIGN §2: `--scenario` is an id from the scenarios file or a path to a scenario file.

    None gives the first scenario of `settings.scenarios_path`.
    """
    if arg is not None and (arg.endswith(".json") or Path(arg).is_file()):
        return load_scenario_file(arg)
    scenarios = load_scenarios(settings.scenarios_path)
    if not scenarios:
        raise ScenarioError(f"scenarios file {str(settings.scenarios_path)!r} is empty")
    if arg is None:
        return scenarios[0]
    for s in scenarios:
        if s.id == arg:
            return s
    known = ", ".join(s.id for s in scenarios)
    raise ScenarioError(
        f"unknown scenario {arg!r} in {str(settings.scenarios_path)!r}; known ids: {known}"
    )


def resolve_scenarios(args: list[str], settings: Settings) -> list[Scenario]:
    """Several `--scenario`s: each an id from the scenarios file, a scenario file, or
    a scenarios file (a list, whose entries may be marked `held_out`)."""
    out: list[Scenario] = []
    for arg in args:
        if arg.endswith(".json") or Path(arg).is_file():
            scenarios = load_scenarios(arg)
            if not scenarios:
                raise ScenarioError(f"scenario file {arg!r} holds no scenario")
            out.extend(scenarios)
        else:
            out.append(resolve_scenario(arg, settings))
    return out


def sample_scenarios(settings: Settings) -> list[Scenario]:
    """The scenarios file's scenarios (none when it does not exist)."""
    path = settings.scenarios_path
    return load_scenarios(path) if path.exists() else []
