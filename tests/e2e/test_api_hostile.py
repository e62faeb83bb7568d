"""Hostile and malformed input against a real API server: every bad body gets a 4xx
naming what is wrong, bounded in size, and nothing is written (issue 10)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.api import ApiServer, weave_request

pytestmark = pytest.mark.e2e

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    server = ApiServer(tmp_path_factory.mktemp("api-hostile")).start()
    yield server
    server.stop()


def _nothing_written(api: ApiServer) -> None:
    runs = api.results / "runs"
    assert not runs.exists() or not list(runs.iterdir()), list(runs.iterdir())


def _post(api: ApiServer, body: bytes, path: str = "/learn-loop", **kw: Any) -> httpx.Response:
    headers = kw.pop("headers", JSON)
    return httpx.post(api.url + path, content=body, headers=headers, timeout=60, **kw)


def _graph() -> list[dict[str, Any]]:
    return weave_request()["graph"]  # type: ignore[no-any-return]


def _with(mutate: Any) -> bytes:
    """The weave request with one node changed, serialised the way a client would
    (json.dumps escapes a lone surrogate as \\udfff, as the issue's requests did)."""
    body = weave_request()
    mutate(body["graph"])
    return json.dumps(body).encode()


def _set(i: int, key: str, value: Any) -> Any:
    return lambda g: g[i].__setitem__(key, value)


MALFORMED: list[tuple[str, bytes, int, str]] = [
    ("deep-lists", b'{"graph": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", 400,
     "nested too deeply"),
    ("deep-objects", b'{"graph": [' + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"]}", 400,
     "nested too deeply"),
    ("5000-digit-int", b'{"iterations": ' + b"7" * 5000 + b"}", 400, "too many digits"),
    ("5000-digit-seed-in-graph", b'{"graph": [{"id": ' + b"1" * 5000 + b"}]}", 400,
     "too many digits"),
    ("invalid-utf8", b'{"iterations": 2, "scenario": "\xff\xfe"}', 400, "not valid UTF-8"),
    ("surrogate-in-content", _with(_set(1, "content", "ok \udfff")), 400, "surrogate"),
    ("surrogate-in-id", _with(_set(2, "id", "\ud800")), 400, "surrogate"),
    ("surrogate-in-edge", _with(lambda g: g[0]["edge"][0].__setitem__("rationale", "\udc00")),
     400, "surrogate"),
    ("surrogate-in-key", _with(_set(0, "\udfff", "x")), 400, "surrogate"),
    ("surrogate-in-prospect", json.dumps({"scenario": {"prospect": {"name": "A\udfffB"},
     "goal": "call"}}).encode(), 400, "surrogate"),
    ("nan", b'{"seed": NaN}', 400, "line 1, column 10"),
    ("syntax", b'{\n  "iterations": 2,\n  "depth" 3\n}', 400, "expected `:` (line 3, column 11)"),
    ("trailing-garbage", b'{"iterations": 2} {}', 400, "more text after the JSON value"),
    ("bare-node-list", json.dumps(weave_request()["graph"]).encode(), 422,
     'wrap it as {"graph": [...]}'),
    ("a-string", b'"hello"', 422, "must be a JSON object, got str"),
    ("unknown-node-key", _with(lambda g: g[1].__setitem__("contnet", g[1].pop("content"))), 422,
     "unknown node key 'contnet'; did you mean `content`?"),
    ("unknown-edge-key", _with(lambda g: g[0]["edge"][0].__setitem__("rationle", "x")), 422,
     "unknown edge key 'rationle'; did you mean `rationale`?"),
    ("unknown-field", b'{"iteration": 2}', 422,
     "unknown field 'iteration'; did you mean `iterations`?"),
    ("scenario-typo", b'{"scenario": {"prospect": {"name": "A"}, "goal": "g", "seed_node": []}}',
     422, "seed_node"),
    ("seed-not-in-graph", json.dumps({**weave_request(), "scenario": {"prospect": {"name": "Ann"},
     "goal": "a call", "seed_nodes": ["Customer Job", "Nowhere Node"]}}).encode(), 422,
     "seed node 'Nowhere Node' of scenario 'custom' is not in the graph"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "status", "says"), [m[1:] for m in MALFORMED],
                         ids=[m[0] for m in MALFORMED])  # fmt: skip
def test_malformed_bodies_get_a_4xx_naming_the_fault(
    api: ApiServer, body: bytes, status: int, says: str
) -> None:
    r = _post(api, body)
    assert r.status_code == status, r.text
    err = r.json()
    text = err["detail"] + " ".join(p["message"] for p in err["problems"])
    assert says in text, err
    assert err["problems"] and err["problem_count"] >= 1
    assert len(r.content) <= max(len(body), 1024)
    _nothing_written(api)


def test_content_type_missing_or_wrong_gets_415_with_the_header_to_send(api: ApiServer) -> None:
    body = b'{"iterations": 1, "depth": 1}'
    for content_type in (None, "text/plain", "application/x-www-form-urlencoded",
                         "application/json; charset=latin-1"):  # fmt: skip
        headers = {"Content-Type": content_type} if content_type else {}
        r = _post(api, body, headers=headers)
        assert r.status_code == 415, (headers, r.text)
        assert "Content-Type: application/json" in r.json()["detail"]
        assert r.json()["problems"][0]["where"] == "header.Content-Type"
    # application/*+json and an explicit utf-8 are JSON.
    r = _post(api, b'{"iterations": 0}', headers={"Content-Type": "application/vnd.x+json"})
    assert r.status_code == 422
    r = _post(
        api, b'{"iterations": 0}', headers={"Content-Type": "application/json; charset=UTF-8"}
    )
    assert r.status_code == 422
    _nothing_written(api)


def test_oversized_body_gets_413(api: ApiServer) -> None:
    r = _post(api, b'{"graph": "' + b"x" * 2_100_000 + b'"}')
    assert r.status_code == 413 and "limit" in r.json()["detail"]
    _nothing_written(api)


def test_problem_lists_are_bounded_counted_and_never_repeated(api: ApiServer) -> None:
    """The issue's amplifier: 100,000 unknown edge targets once got a 15 MB answer."""
    graph = _graph()
    graph[0]["edge"] += [{"target": f"g{i:x}"} for i in range(100_000)]
    body = json.dumps({"graph": graph}, separators=(",", ":")).encode()
    assert len(body) < 2_000_000
    r = _post(api, body)
    assert r.status_code == 422, r.text[:500]
    err = r.json()
    assert err["problem_count"] == 100_000
    assert len(err["problems"]) == 20
    assert len({(p["where"], p["message"]) for p in err["problems"]}) == 20
    assert "g0" not in err["detail"]  # the summary lists nothing
    assert len(r.content) < 10_000
    _nothing_written(api)


def test_long_values_are_cut_in_errors(api: ApiServer) -> None:
    graph = _graph()
    long_id = "N" * 500_000
    graph.append({"id": long_id, "edge": [{"target": "M" * 500_000}]})
    body = json.dumps({"graph": graph}).encode()
    r = _post(api, body)
    assert r.status_code == 422
    assert len(r.content) < 5_000, len(r.content)
    assert "500,000 characters" in r.text
    _nothing_written(api)


def test_feedback_refuses_unknown_fields_bounds_fields_and_parses_times(api: ApiServer) -> None:
    ok = {"type": "human_preference", "trajectory_id": "i1-greedy", "value": 0.5}
    feedback = api.results / "feedback" / "runs.jsonl"
    size = feedback.stat().st_size if feedback.exists() else 0
    bad: list[tuple[dict[str, Any], str]] = [
        ({**ok, "colour": "blue"}, "unknown field 'colour'"),
        ({**ok, "trajectory_id": "t" * 1_900_000}, "at most 200 characters"),
        ({**ok, "note": "n" * 2001}, "at most 2000 characters"),
        ({**ok, "email_key": "sha256:" + "0" * 5000}, "email_key"),
        ({**ok, "created_at": "yesterday"}, "ISO 8601"),
        ({**ok, "created_at": "2025-10-12T13:00:15"}, "time zone"),
        ({**ok, "run_id": "api-20250101-000000-abcdef\n"}, "run_id"),
        ({**ok, "trajectory_id": "a\nb"}, "trajectory_id"),
    ]
    for event, says in bad:
        r = httpx.post(f"{api.url}/feedback", json=event, timeout=30)
        assert r.status_code == 422, (event.keys(), r.text[:300])
        assert says in r.text, r.text[:300]
        assert len(r.content) < 2_000
    pref = b'{"type": "human_preference", "value": 1, '
    for raw in (pref + b'"email_key": "\\ud800"}',
                pref + b'"trajectory_id": "x\\udfff"}',
                pref + b'"note": "\\udfff", "trajectory_id": "t"}'):  # fmt: skip
        r = _post(api, raw, "/feedback")
        assert r.status_code == 400 and "surrogate" in r.text
    assert (feedback.stat().st_size if feedback.exists() else 0) == size  # nothing appended

    r = httpx.post(
        f"{api.url}/feedback", json={**ok, "created_at": "2025-10-12T15:00:15+02:00"}, timeout=30
    )
    assert r.status_code == 201, r.text
    assert r.json()["event"]["created_at"] == "2025-10-12T13:00:15Z"


@pytest.mark.parametrize(
    "bad_id",
    [
        "api-20250101-000000-abcdef%0A",  # a trailing newline
        "api-%EF%BC%92%EF%BC%90250101-000000-abcdef",  # full-width digits
        "api-20250101-000000-ABCDEF",
        "api-20250101-000000-abcdef%20",
        "%ED%A0%80",  # an encoded lone surrogate
    ],
)
def test_run_ids_are_ascii_and_anchored(api: ApiServer, bad_id: str) -> None:
    for method, suffix in (("GET", ""), ("GET", "/graph"), ("GET", "/events"),
                           ("POST", "/cancel"), ("POST", "/resume")):  # fmt: skip
        body = {} if method == "POST" else None
        r = httpx.request(method, f"{api.url}/runs/{bad_id}{suffix}", json=body, timeout=10)
        assert r.status_code == 422, (method, suffix, r.text)
        assert r.json()["problems"][0]["where"] == "run_id"
    _nothing_written(api)


A_RUN = "/runs/api-20250101-000000-abcdef"


@pytest.mark.parametrize("path", ["/learn-loop", f"{A_RUN}/resume", f"{A_RUN}/cancel", "/feedback"])
@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 415),  # fetch(url, {method: 'POST', mode: 'no-cors'}) from another page
        ({"Content-Type": "text/plain;charset=UTF-8"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({"Content-Type": "application/json"}, 422),  # declared JSON, but nothing sent
    ],
)
def test_an_empty_post_starts_nothing(
    api: ApiServer, path: str, headers: dict[str, str], status: int
) -> None:
    r = httpx.post(api.url + path, headers=headers, timeout=10)
    assert r.status_code == status, r.text
    where = "header.Content-Type" if status == 415 else "body"
    assert r.json()["problems"][0]["where"] == where
    _nothing_written(api)


@pytest.fixture(scope="module")
def runs_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    """A second server for the tests that do start runs (the first must stay empty)."""
    server = ApiServer(tmp_path_factory.mktemp("api-hostile-runs")).start()
    yield server
    server.stop()


def test_last_event_id_is_parsed_safely(runs_api: ApiServer) -> None:
    api = runs_api
    run = api.post_run({**weave_request(), "iterations": 1, "group_size": 2})
    api.wait(run["run_id"])
    url = f"{api.url}/runs/{run['run_id']}/events"
    for value in ("9" * 5000, "²".encode(), "１".encode(), "-1", "1.5", "0x10"):
        r = httpx.get(url, headers={"Last-Event-ID": value}, timeout=30)
        assert r.status_code == 400, (value, r.text)
        assert r.json()["problems"][0]["where"] == "header.Last-Event-ID"
    for query in ("9" * 5000, "²", "-1"):
        r = httpx.get(url, params={"last_event_id": query}, timeout=30)
        assert r.status_code == 422, r.text
    r = httpx.get(url, headers={"Last-Event-ID": "3"}, timeout=30)
    assert r.status_code == 200
    ids = [int(line[4:]) for line in r.text.splitlines() if line.startswith("id: ")]
    assert ids and ids[0] == 4


def test_results_path_is_relative_to_the_results_store(runs_api: ApiServer) -> None:
    api = runs_api
    run = api.post_run({**weave_request(), "iterations": 1, "group_size": 2})
    assert run["results_path"] == f"runs/{run['run_id']}"
    api.wait(run["run_id"])
    status = api.status(run["run_id"])
    assert status["results_path"] == f"runs/{run['run_id']}"
    assert str(api.home) not in httpx.get(f"{api.url}/runs/{run['run_id']}", timeout=10).text
