"""The HTTP surface of a real API server: input errors, limits, auth, CORS, run ids,
SSE, listing, cancel, the full queue, feedback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.api import ApiServer, weave_request
from tests.support.event_gate import EventGate
from tests.support.paths import KG

pytestmark = pytest.mark.e2e

LONG = {"iterations": 40, "depth": 8, "group_size": 128}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    home = tmp_path_factory.mktemp("api-http")
    server = ApiServer(
        home,
        {
            "CODREAMER_MAX_GRAPH_NODES": "50",
            "CODREAMER_MAX_BODY_BYTES": "100000",
            "CODREAMER_MAX_CONCURRENT_RUNS": "1",
        },
    ).start()
    yield server
    server.stop()


def _runs_on_disk(api: ApiServer) -> set[str]:
    d = api.results / "runs"
    return {p.name for p in d.iterdir()} if d.exists() else set()


def _problems(r: httpx.Response) -> list[str]:
    return [f"{p['where']}: {p['message']}" for p in r.json()["problems"]]


def test_a_bad_graph_gets_every_problem_at_once_and_nothing_is_written(api: ApiServer) -> None:
    before = _runs_on_disk(api)
    graph = [
        {"id": "Customer Job", "content": 5, "edge": [{"target_id": "Nowhere"}]},
        {"id": "Customer Job", "content": "again"},
        {"id": "Middle", "edges": "not-a-list"},
    ]
    r = httpx.post(f"{api.url}/learn-loop", json={"graph": graph}, timeout=10)
    assert r.status_code == 422
    text = "\n".join(_problems(r))
    assert "duplicate id" in text
    assert "edge #0 of node 'Customer Job': points to unknown node 'Nowhere'" in text
    assert "`content` must be a string" in text
    assert "node 'Middle': `edges` must be a list" in text
    assert "Product Feature" in text
    assert _runs_on_disk(api) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"iterations": 0}, "iterations"),
        ({"iterations": 51}, "iterations"),
        ({"depth": 13}, "depth"),
        ({"group_size": 1}, "group_size"),
        ({"seed": -1}, "seed"),
        ({"iterations": "two"}, "iterations"),
        ({"iterations": 2.5}, "iterations"),
        ({"graph": {"not": "a list"}}, "graph"),
        ({"iteratons": 2}, "iteratons"),
        ({"policy": "gpt"}, "policy"),
        ({"policy": "openai"}, "policy"),  # no OPENAI_BASE_URL on this server
        ({"judge": "llm"}, "judge"),
        ({"scenario": {"goal": "no prospect"}}, "scenario"),
    ],
)
def test_bad_fields_are_named(api: ApiServer, body: dict, field: str) -> None:
    before = _runs_on_disk(api)
    r = httpx.post(f"{api.url}/learn-loop", json=body, timeout=10)
    assert r.status_code == 422, r.text
    assert any(field in p for p in _problems(r)), r.text
    assert _runs_on_disk(api) == before


def test_unknown_scenario_and_broken_json(api: ApiServer) -> None:
    r = httpx.post(f"{api.url}/learn-loop", json={"scenario": "no-such-id"}, timeout=10)
    assert r.status_code == 422 and "no-such-id" in r.json()["detail"]
    assert r.json()["problems"][0]["where"] == "scenario"
    r = httpx.post(
        f"{api.url}/learn-loop",
        content=b'{"iterations": ',
        timeout=10,
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 400
    assert (
        r.json()["problems"][0]["message"]
        == "not valid JSON: the JSON ends early (line 1, column 15)"
    )


def test_too_big_bodies_get_413(api: ApiServer) -> None:
    before = _runs_on_disk(api)
    big = json.dumps({"graph": [{"id": f"n{i}", "content": "x" * 1000} for i in range(200)]})
    r = httpx.post(
        f"{api.url}/learn-loop",
        content=big,
        timeout=10,
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        for i in range(0, len(big), 8192):
            yield big[i : i + 8192].encode()

    r = httpx.post(
        f"{api.url}/learn-loop",
        content=chunks(),
        timeout=10,
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 413
    # A graph over the node cap (50 here) is refused the same way.
    many = [{"id": f"n{i}"} for i in range(60)]
    r = httpx.post(f"{api.url}/learn-loop", json={"graph": many}, timeout=10)
    assert r.status_code == 413 and "cap" in r.json()["detail"]
    assert _runs_on_disk(api) == before


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/runs/not-a-run", 422),
        ("/runs/api-20990101-000000-abcdef", 404),
        ("/runs/..%2F..%2Fetc%2Fpasswd", 404),  # decoded to slashes: no such route
        ("/runs/api-20990101-000000-abcdef/graph", 404),
        ("/runs/api-20990101-000000-abcdef/events", 404),
        ("/runs/%2e%2e/graph", 422),
    ],
)
def test_run_ids_are_checked(api: ApiServer, path: str, status: int) -> None:
    assert httpx.get(api.url + path, timeout=10).status_code == status


def test_sse_streams_to_the_end_and_resumes_from_last_event_id(api: ApiServer) -> None:
    run = api.post_run({**weave_request(), "iterations": 2, "group_size": 4})
    ids, kinds = [], []
    with httpx.stream("GET", api.url + run["events_url"], timeout=60) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("id:"):
                ids.append(int(line[3:].strip()))
            elif line.startswith("event:"):
                kinds.append(line[6:].strip())
    assert ids == list(range(1, len(ids) + 1))
    assert "run_finished" in kinds and kinds[-1] == "end"
    later = []
    with httpx.stream(
        "GET", api.url + run["events_url"], headers={"Last-Event-ID": "5"}, timeout=60
    ) as r:
        for line in r.iter_lines():
            if line.startswith("id:"):
                later.append(int(line[3:].strip()))
    assert later == ids[5:]
    # Listing: newest first, and filterable.
    runs = httpx.get(f"{api.url}/runs", params={"status": "succeeded"}, timeout=10).json()["runs"]
    assert run["run_id"] in [x["run_id"] for x in runs]
    assert all(x["status"] == "succeeded" for x in runs)
    every = httpx.get(f"{api.url}/runs", timeout=10).json()["runs"]
    stamps = [x["run_id"][4:] for x in every]
    assert stamps == sorted(stamps, reverse=True)


def test_cancel_queued_and_running_runs(api: ApiServer) -> None:
    graph = json.loads((KG / "synthetic-data-16.json").read_text())
    running = api.post_run({"graph": graph, **LONG})["run_id"]
    queued = api.post_run({"graph": graph, **LONG})["run_id"]  # one at a time here
    api.wait(running, until={"running"}, timeout=30)
    assert api.status(queued)["status"] == "queued"
    assert api.status(queued)["queue_position"] == 1

    r = httpx.post(f"{api.url}/runs/{queued}/cancel", json={}, timeout=10)
    assert r.status_code == 202 and r.json()["status"] == "cancelled"
    r = httpx.post(f"{api.url}/runs/{running}/cancel", json={}, timeout=10)
    assert r.status_code == 202 and r.json()["status"] == "cancelling"
    st = api.wait(running, timeout=60)
    assert st["status"] == "cancelled"
    assert st["progress"]["iteration"] < LONG["iterations"]
    assert httpx.post(f"{api.url}/runs/{running}/cancel", json={}, timeout=10).status_code == 409
    # A cancelled run can be resumed, and cancelled again.
    r = httpx.post(f"{api.url}/runs/{queued}/resume", json={}, timeout=10)
    assert r.status_code == 202
    assert httpx.post(f"{api.url}/runs/{queued}/cancel", json={}, timeout=10).status_code == 202
    assert api.wait(queued, timeout=60)["status"] == "cancelled"


def test_feedback_scenarios_health_docs(api: ApiServer) -> None:
    run = api.post_run({**weave_request(), "iterations": 1, "group_size": 2})
    api.wait(run["run_id"])
    event = {
        "type": "online_outcome",
        "run_id": run["run_id"],
        "trajectory_id": "i1-g0-t0",
        "outcome": "replied",
    }
    r = httpx.post(f"{api.url}/feedback", json=event, timeout=10)
    assert r.status_code == 201, r.text
    # Kept in the results store, never in the tracked data/.
    rows = (api.results / "feedback" / "runs.jsonl").read_text().splitlines()
    assert json.loads(rows[-1])["outcome"] == "replied"
    assert (api.data / "feedback.jsonl").read_text() == ""
    bad = {**event, "outcome": "loved it"}
    assert httpx.post(f"{api.url}/feedback", json=bad, timeout=10).status_code == 422
    unknown = {**event, "run_id": "api-20990101-000000-abcdef"}
    assert httpx.post(f"{api.url}/feedback", json=unknown, timeout=10).status_code == 404

    sc = httpx.get(f"{api.url}/scenarios", timeout=10).json()
    assert sc["default"] == sc["scenarios"][0]["id"]
    assert httpx.get(f"{api.url}/healthz", timeout=10).json()["status"] == "ok"
    assert httpx.get(f"{api.url}/docs", timeout=10).status_code == 200
    paths = httpx.get(f"{api.url}/openapi.json", timeout=10).json()["paths"]
    assert {
        "/learn-loop",
        "/runs",
        "/runs/{run_id}",
        "/runs/{run_id}/events",
        "/runs/{run_id}/graph",
        "/runs/{run_id}/cancel",
        "/runs/{run_id}/resume",
        "/feedback",
        "/healthz",
        "/scenarios",
    } <= set(paths)


def test_bearer_key_cors_and_a_full_queue(tmp_path: Path) -> None:
    # Runs wait at the gate as they start, so none ends and frees a slot before the
    # third POST (a fast machine could finish even a long run first).
    gate = EventGate()
    gate.hold(lambda _run, e: e["type"] == "run_started")
    server = ApiServer(
        tmp_path,
        {
            "CODREAMER_API_KEY": "s3cret",
            "CODREAMER_MAX_CONCURRENT_RUNS": "1",
            "CODREAMER_MAX_QUEUED_RUNS": "1",
            "CODREAMER_QUEUE_RETRY_AFTER": "7",
            **gate.env,
        },
    ).start()
    try:
        url = f"{server.url}/learn-loop"
        graph = json.loads((KG / "synthetic-data-16.json").read_text())
        body = {"graph": graph, **LONG}
        assert httpx.post(url, json=body, timeout=10).status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert httpx.post(url, json=body, headers=wrong, timeout=10).status_code == 401
        key = {"Authorization": "Bearer s3cret"}
        first = server.post_run(body, headers=key)["run_id"]
        second = server.post_run(body, headers=key)["run_id"]
        before = _runs_on_disk(server)
        r = httpx.post(url, json=body, headers=key, timeout=10)
        assert r.status_code == 429 and r.headers["retry-after"] == "7"
        assert _runs_on_disk(server) == before
        # Reads need the key too (run lists name prospects); only /healthz is open.
        assert httpx.get(f"{server.url}/runs/{first}", timeout=10).status_code == 401
        assert httpx.get(f"{server.url}/runs/{first}", headers=key, timeout=10).status_code == 200
        assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200
        r = httpx.post(f"{server.url}/runs/{first}/cancel", json={}, timeout=10)
        assert r.status_code == 401
        for run_id in (second, first):
            r = httpx.post(f"{server.url}/runs/{run_id}/cancel", json={}, headers=key, timeout=10)
            assert r.status_code == 202

        pre = httpx.options(
            url,
            timeout=10,
            headers={
                "Origin": "http://127.0.0.1:3000",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert pre.status_code == 200
        assert pre.headers["access-control-allow-origin"] == "http://127.0.0.1:3000"
        evil = httpx.options(
            url,
            timeout=10,
            headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
        )
        assert "access-control-allow-origin" not in evil.headers
    finally:
        server.stop()
        gate.close()
