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


def test_a_prospect_key_typo_is_named_with_the_field_it_meant(tmp_path: Path) -> None:
    body = b'{"scenario":{"prospect":{"nmae":"Kim"},"goal":"Book a call"}}'
    [p] = _problems(_client(tmp_path), body)
    assert p["where"] == "body.scenario.prospect.name"
    assert p["message"] == "Field required; you sent 'nmae': did you mean `name`?"


def test_node_names_that_differ_only_in_case_get_a_did_you_mean(tmp_path: Path) -> None:
    graph = [
        {"id": "Customer job", "content": "x", "edges": [{"target": "Pour loss"}]},
        {"id": "Pour Loss", "content": "y"},
        {"id": "Product Feature: Alerts", "content": "z"},
    ]
    import json

    problems = _problems(_client(tmp_path), json.dumps({"graph": graph}).encode())
    messages = [p["message"] for p in problems]
    assert "points to unknown node 'Pour loss'; did you mean 'Pour Loss'?" in messages
    assert "no 'Customer Job' node; did you mean 'Customer job'?" in messages


def test_a_path_no_route_serves_says_which_server_this_is(tmp_path: Path) -> None:
    r = _client(tmp_path).get("/")
    assert r.status_code == 404
    [p] = r.json()["problems"]
    assert p["where"] == "GET /"
    assert "/docs" in p["message"] and "dashboard" in p["message"] and "3000" in p["message"]
    # A route's own 404 keeps its words.
    r = _client(tmp_path).get("/runs/api-20260101-000000-abcdef")
    assert r.status_code == 404 and "not found: GET" not in r.text


def test_several_held_out_prospects_say_what_to_do(tmp_path: Path) -> None:
    body = b'{"scenarios":["polar-pharma-compliance","medroute-pilot"]}'
    [p] = _problems(_client(tmp_path), body)
    assert "nothing to train on" in p["message"] and "alone" in p["message"]
    assert "nothing to train on" not in p["where"]


def test_a_scenario_id_typo_gets_did_you_mean(tmp_path: Path) -> None:
    [p] = _problems(_client(tmp_path), b'{"scenario":"polar-pharma-compliace"}')
    assert p["message"].startswith(
        "unknown scenario id 'polar-pharma-compliace'; did you mean 'polar-pharma-compliance'?"
    )
    assert "Known ids: northfield-dairy-ops" in p["message"]


def test_several_scenarios_sent_as_scenario_point_to_scenarios(tmp_path: Path) -> None:
    body = b'{"scenario":["polar-pharma-compliance","northfield-dairy-ops"]}'
    [p] = _problems(_client(tmp_path), body)  # one problem, not one per union branch
    assert p["where"] == "body.scenario"
    assert "did you mean `scenarios`?" in p["message"]


def test_a_value_that_fits_no_branch_is_one_problem(tmp_path: Path) -> None:
    [p] = _problems(_client(tmp_path), b'{"scenario":42}')
    assert p["where"] == "body.scenario"
    assert p["message"].startswith("Input should be a valid string, or "), p["message"]
