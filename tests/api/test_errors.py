"""Error bodies name what is wrong in words a caller can act on."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from codreamer.api.app import create_app
from codreamer.config import Settings


def _client(tmp_path: Path) -> TestClient:
    # No lifespan: these requests are refused before any run could start.
    return TestClient(
        create_app(Settings(CODREAMER_RESULTS_DIR=tmp_path)), base_url="http://localhost"
    )


def _problems(client: TestClient, body: bytes, status: int = 422) -> list[dict[str, str]]:
    r = client.post("/learn-loop", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    return r.json()["problems"]


def test_broken_json_is_called_that_with_line_and_column(tmp_path: Path) -> None:
    [p] = _problems(_client(tmp_path), b'{\n  "depth": 2,\n  "iterations" 3}', 400)
    assert p["where"] == "body"
    assert p["message"] == "not valid JSON: expected `:` (line 3, column 16)"


def test_union_branch_names_do_not_leak(tmp_path: Path) -> None:
    wheres = [p["where"] for p in _problems(_client(tmp_path), b'{"scenario":{"prospect":{}}}')]
    assert "body.scenario.prospect.name" in wheres and "body.scenario.goal" in wheres
    assert not any(".Scenario." in w or w.endswith(".str") for w in wheres)


def test_unknown_scenario_names_it_once(tmp_path: Path) -> None:
    [p] = _problems(_client(tmp_path), b'{"scenario":"nope"}')
    assert p["where"] == "scenario"
    assert p["message"].startswith("unknown scenario id 'nope'; known ids:")
    assert not list(tmp_path.iterdir())  # nothing written for a refused request


def test_a_trainer_the_policy_cannot_use_is_named_with_what_is_allowed(tmp_path: Path) -> None:
    [p] = _problems(_client(tmp_path), b'{"policy":"embedded","trainer":"prompt"}')
    assert p["where"] == "trainer"
    assert p["message"] == (
        "trainer prompt cannot train policy embedded; allowed with policy embedded: grpo, none"
    )
    assert not list(tmp_path.iterdir())
