"""One parser and one graph loader for every way in (API, `graph validate`,
`learn-loop --graph`): unknown keys named with the close one, problems bounded,
request bodies accepted as graph files, a missing seed node named (issues 10, 14)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codreamer.errors import DataFileError, GraphValidationError, JSONInputError, ScenarioError
from codreamer.graph.schema import check_seed_nodes, parse_graph
from codreamer.loaders import load_graph
from codreamer.models import Prospect, Scenario
from codreamer.safe_json import parse_json
from tests.support.cli import run_cli
from tests.support.env import bare_env


def good() -> list[dict[str, Any]]:
    return [
        {"id": "Customer Job", "content": "Runs a bakery.",
         "edge": [{"target_id": "Product Feature", "relationship": "is solved by"}]},
        {"id": "Product Feature", "content": "Oven monitoring."},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "reason", "line", "column"),
    [
        (b'{\n "a": 1,\n "b" 2}', "expected `:`", 3, 6),
        ('{"é": x}'.encode(), "expected value", 1, 7),  # characters, not bytes
        (b"[" * 10_000, "nested too deeply", 1, None),
        (b"[" + b"9" * 5000 + b"]", "too many digits", 1, None),
        (b'["\xff"]', "not valid UTF-8", 1, 3),
        (b'["\\udfff"]', "surrogate pair", 1, None),
        (b'["\\ud800 "]', "low surrogate", 1, None),
        (b"[NaN]", "expected value", 1, 2),
        (b"", "empty", None, None),
    ],
)
def test_the_parser_names_the_fault_and_where(
    text: bytes, reason: str, line: int | None, column: int | None
) -> None:
    with pytest.raises(JSONInputError) as info:
        parse_json(text)
    assert reason in info.value.reason
    assert info.value.line == line
    if column is not None:
        assert info.value.column == column


def test_the_parser_takes_what_json_allows() -> None:
    assert parse_json(b'\xef\xbb\xbf{"a": ["\\ud83d\\ude00", 1.5, null]}') == {
        "a": ["\U0001f600", 1.5, None]
    }


@pytest.mark.parametrize(
    ("mutate", "where", "says"),
    [
        (lambda g: g[1].__setitem__("contnet", "x"), "node 'Product Feature'",
         "unknown node key 'contnet'; did you mean `content`?"),
        (lambda g: g[1].__setitem__("Edges", []), "node 'Product Feature'",
         "unknown node key 'Edges'; did you mean `edges`?"),
        (lambda g: g[1].__setitem__("colour", "red"), "node 'Product Feature'",
         "unknown node key 'colour'; known keys: id, content, edge, edges, verification"),
        (lambda g: g[0]["edge"][0].__setitem__("relationshp", "x"),
         "edge #0 of node 'Customer Job'", "did you mean `relationship`?"),
        (lambda g: g[1].__setitem__("verification", {"confidnce": 0.5}), "node 'Product Feature'",
         "did you mean `confidence`?"),
        (lambda g: g[0].__setitem__("edges", []), "node 'Customer Job'", "both `edge` and `edges`"),
    ],
)  # fmt: skip
def test_keys_outside_the_schema_are_named(mutate: Any, where: str, says: str) -> None:
    g = good()
    mutate(g)
    with pytest.raises(GraphValidationError) as info:
        parse_graph(g)
    assert any(p.where == where and says in p.message for p in info.value.problems), [
        str(p) for p in info.value.problems
    ]


def test_problems_are_kept_bounded_and_counted() -> None:
    g = good()
    g[0]["edge"] += [{"target": f"ghost-{i}"} for i in range(5000)]
    g.append({"id": "x" * 100_000, "edge": [{"target": "y" * 100_000}]})
    with pytest.raises(GraphValidationError) as info:
        parse_graph(g)
    err = info.value
    assert err.total == 5001 and len(err.problems) == 100
    assert len(str(err)) < 200
    cut = parse_graph_problem_for(g, "x")
    assert "100,000 characters" in cut and len(cut) < 600


def parse_graph_problem_for(g: list[dict[str, Any]], prefix: str) -> str:
    only = [n for n in g if n["id"].startswith(prefix)] + good()
    with pytest.raises(GraphValidationError) as info:
        parse_graph(only)
    return str(info.value.problems[0])


def test_a_request_body_is_a_graph_file_too(tmp_path: Path) -> None:
    body = tmp_path / "request.json"
    body.write_text(json.dumps({"graph": good(), "iterations": 2, "depth": 5}))
    assert len(load_graph(body)) == 2
    (tmp_path / "nodes.json").write_text(json.dumps({"nodes": good()}))
    assert len(load_graph(tmp_path / "nodes.json")) == 2
    (tmp_path / "other.json").write_text(json.dumps({"iterations": 2}))
    with pytest.raises(GraphValidationError, match="as `graph`"):
        load_graph(tmp_path / "other.json")
    (tmp_path / "bad.json").write_bytes(b'[{"id": "\\udfff"}]')
    with pytest.raises(DataFileError, match="surrogate"):
        load_graph(tmp_path / "bad.json")


def test_a_seed_node_not_in_the_graph_is_named() -> None:
    sc = Scenario(id="s1", prospect=Prospect(name="Ann"), goal="a call", seed_nodes=["Nowhere"])
    with pytest.raises(ScenarioError, match="seed node 'Nowhere' of scenario 's1'"):
        check_seed_nodes({"Customer Job", "Product Feature"}, sc)
    check_seed_nodes({"Customer Job"}, sc.model_copy(update={"seed_nodes": ["Customer Job"]}))


def test_the_cli_says_what_the_api_says(tmp_path: Path) -> None:
    """graph validate and learn-loop --graph: the same checks, nothing written."""
    body = tmp_path / "request.json"
    body.write_text(json.dumps({"graph": good(), "iterations": 1}))
    r = run_cli("graph", "validate", str(body), cwd=tmp_path, base=bare_env(tmp_path))
    assert r.returncode == 0 and ": ok: 2 nodes" in r.stdout, r.stdout + r.stderr

    typo = good()
    typo[1]["contnet"] = typo[1].pop("content")
    (tmp_path / "typo.json").write_text(json.dumps(typo))
    r = run_cli("graph", "validate", "typo.json", cwd=tmp_path, base=bare_env(tmp_path))
    assert r.returncode == 1
    assert "unknown node key 'contnet'; did you mean `content`?" in r.stdout

    (tmp_path / "surrogate.json").write_text(
        '{"graph": [{"id": "Customer Job", "content": "\\udfff"}]}'
    )
    for args in (["graph", "validate", "surrogate.json"],
                 ["learn-loop", "1", "1", "--graph", "surrogate.json"]):  # fmt: skip
        r = run_cli(*args, cwd=tmp_path, base=bare_env(tmp_path))
        assert r.returncode != 0
        assert "surrogate pair" in r.stdout + r.stderr and "line 1, column" in r.stdout + r.stderr

    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"prospect": {"name": "Ann"}, "goal": "a call",
                                    "seed_nodes": ["Nowhere"]}))  # fmt: skip
    r = run_cli(
        "learn-loop",
        "1",
        "1",
        "--graph",
        str(body),
        "--scenario",
        str(scenario),
        cwd=tmp_path,
        base=bare_env(tmp_path),
    )
    assert r.returncode == 2
    assert "seed node 'Nowhere' of scenario 'custom' is not in the graph" in r.stderr

    for bad in ("run-20250101-000000-abcdef\n", "run-２０250101-000000-abcdef"):
        r = run_cli("learn-loop", "1", "1", cwd=tmp_path, base=bare_env(tmp_path), RUN_ID=bad)
        assert r.returncode == 2 and "invalid run id" in r.stderr
    r = run_cli(
        "learn-loop",
        "--resume",
        "run-20250101-000000-abcdef\n",
        cwd=tmp_path,
        base=bare_env(tmp_path),
    )
    assert r.returncode == 2 and "invalid run id" in r.stderr
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*"))


def test_graph_validate_bounds_its_list(tmp_path: Path) -> None:
    g = good()
    g[0]["edge"] += [{"target": f"ghost-{i}"} for i in range(300)]
    (tmp_path / "g.json").write_text(json.dumps(g))
    r = run_cli("graph", "validate", "g.json", cwd=tmp_path, base=bare_env(tmp_path))
    lines = r.stdout.splitlines()
    assert r.returncode == 1 and len(lines) == 101
    assert lines[-1] == "... and 200 more problems"
