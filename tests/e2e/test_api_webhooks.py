"""The DESIGN appendix curl examples against a real API, and webhook delivery to a
real receiver: stages, signatures, a receiver that is down, failing, refusing, hanging."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest
from api_support import REPO, ApiServer, Receiver, weave_request
from standardwebhooks.webhooks import Webhook

pytestmark = pytest.mark.e2e

SECRET = "e2e-shared-secret"
# The appendix, verbatim but for the port (the test picks a free one).
CURL_FULL = """curl -X POST http://localhost:8000/learn-loop \\
  -H "Content-Type: application/json" \\
  --data-binary @../shared/kg/weave-feedback-5.request.json"""
CURL_DEFAULTS = """curl -X POST http://localhost:8000/learn-loop \\
  -H "Content-Type: application/json" \\
  --data '{"iterations":2, "depth":2}'"""


def _curl(command: str, port: int) -> dict:
    out = subprocess.run(
        ["bash", "-c", command.replace("localhost:8000", f"localhost:{port}") + " -sS"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(out.stdout)


def _stages(rx: Receiver, run_id: str) -> list[tuple[str, int | None]]:
    return [(r.stage, r.json["iteration"]) for r in rx.ok() if r.json["run_id"] == run_id]


@pytest.fixture
def receiver() -> Receiver:
    rx = Receiver().start()
    yield rx
    rx.stop()


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
def test_appendix_curl_examples_lead_to_signed_staged_webhooks(
    tmp_path: Path, receiver: Receiver
) -> None:
    server = ApiServer(
        tmp_path, {"FRONTEND_URL": receiver.url, "CODREAMER_WEBHOOK_SECRET": SECRET}
    ).start()
    try:
        full = _curl(CURL_FULL, server.port)
        defaults = _curl(CURL_DEFAULTS, server.port)
        for answer in (full, defaults):
            assert answer["status"] == "queued"
            assert {"run_id", "results_path", "status_url", "events_url"} <= answer.keys()
            assert answer["run_id"].startswith("api-")
        for answer in (full, defaults):
            st = server.wait(answer["run_id"])
            assert st["status"] == "succeeded", st
        # A graph of the request's own and no scenario: a neutral reader, no sample
        # prospect, nothing held out (DESIGN §2); the default graph trains on the
        # sample prospects and evaluates on its held-out ones.
        assert [p["scenario_id"] for p in full["prospects"]] == ["neutral-reader"]
        assert server.wait(full["run_id"]).get("eval") is None
        held = [p for p in defaults["prospects"] if p["scenario_id"] != "neutral-reader"]
        st = server.wait(defaults["run_id"])
        assert st["eval"]["scenarios"] == 4 and 0.0 <= st["eval"]["mean_reward"] <= 1.0
        assert len(held) == 8
        receiver.wait_for(8)
        expected = [("baseline", 0), ("iteration", 1), ("iteration", 2), ("final", 2)]
        assert _stages(receiver, full["run_id"]) == expected
        assert _stages(receiver, defaults["run_id"]) == expected

        verifier = Webhook(base64.b64encode(SECRET.encode()).decode())
        for r in receiver.ok():
            assert r.headers["content-type"] == "application/json"
            body = verifier.verify(r.body, r.headers)  # raises if the signature is wrong
            assert r.headers["x-codreamer-stage"] == body["stage"]
            assert (
                r.headers["webhook-id"]
                == f"msg_{body['run_id']}_{body['stage']}_{body['iteration']}"
            )
            assert set(body) >= {"run_id", "final_email", "node_scores"}
        # The full example's run used its own 5-node graph.
        final = [r.json for r in receiver.ok() if r.json["run_id"] == full["run_id"]][-1]
        graph_ids = {n["id"] for n in weave_request()["graph"]}
        assert set(final["node_scores"]) == graph_ids
        assert set(final["final_email"]["citations"]) <= graph_ids
        # A status that carries the latest email and the webhook tally.
        st = server.status(full["run_id"])
        assert st["latest_email"] and st["webhooks"] == {"delivered": 4, "failed": 0, "pending": 0}
    finally:
        server.stop()


@pytest.fixture
def scripted(tmp_path: Path):
    """One API server whose webhooks go to a receiver each test scripts."""
    rx = Receiver()
    server = ApiServer(tmp_path, {"FRONTEND_URL": rx.url}).start()
    yield server, rx
    server.stop()
    rx.stop()


SMALL = {"iterations": 2, "depth": 3, "group_size": 4}


def test_receiver_down_at_first_still_gets_every_event_once(scripted) -> None:
    server, rx = scripted
    # Down (connection refused) for the whole run; it comes up once the run is over,
    # within the retry window the run's process keeps delivering in.
    run = server.post_run({**weave_request(), **SMALL})
    assert server.wait(run["run_id"])["status"] == "succeeded"
    time.sleep(0.5)
    rx.start()
    got = rx.wait_for(4, timeout=30)
    assert [(r.stage, r.json["iteration"]) for r in got] == [
        ("baseline", 0),
        ("iteration", 1),
        ("iteration", 2),
        ("final", 2),
    ]
    assert len(rx.received) == 4  # nothing twice
    rows = server.webhook_rows(run["run_id"])
    assert any(r["type"] == "attempt" and r["error"] for r in rows)  # it was refused at first


def test_500_then_200_is_retried_and_400_is_not(scripted) -> None:
    server, rx = scripted
    rx.statuses = [500, 200, 400]  # baseline: 500 then 200; iteration 1: 400 (dropped)
    rx.start()
    run = server.post_run({**weave_request(), **SMALL})
    assert server.wait(run["run_id"])["status"] == "succeeded"
    rx.wait_for(3, timeout=30)
    time.sleep(0.5)
    by_stage = [(r.stage, r.json["iteration"], r.status) for r in rx.received]
    assert by_stage == [
        ("baseline", 0, 500),
        ("baseline", 0, 200),
        ("iteration", 1, 400),
        ("iteration", 2, 200),
        ("final", 2, 200),
    ]
    rows = server.webhook_rows(run["run_id"])
    gave_up = [r for r in rows if r["type"] == "gave_up"]
    assert len(gave_up) == 1 and "400" in gave_up[0]["reason"]
    events = [
        json.loads(x)
        for x in (server.run_dir(run["run_id"]) / "events.jsonl").read_text().splitlines()
    ]
    assert [e["type"] for e in events].count("webhook_failed") == 1
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def _ts(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def test_a_hanging_receiver_does_not_slow_the_run(tmp_path: Path) -> None:
    rx = Receiver(hang_s=30).start()
    # Each attempt may hang for up to 5 s before it times out.
    server = ApiServer(tmp_path, {"FRONTEND_URL": rx.url, "CODREAMER_WEBHOOK_TIMEOUT": "5"})
    try:
        server.start()
        run = server.post_run({**weave_request(), "iterations": 3, "depth": 3, "group_size": 4})
        st = server.wait(run["run_id"], until={"succeeded", "failed"}, timeout=25)
        assert st["status"] == "succeeded"  # while the receiver has not answered anything
        deadline = time.monotonic() + 15
        while not any(r["type"] == "attempt" for r in server.webhook_rows(run["run_id"])):
            assert time.monotonic() < deadline, "no delivery attempt was recorded"
            time.sleep(0.1)
        rows = server.webhook_rows(run["run_id"])
        enqueued = [r for r in rows if r["type"] == "enqueued"]
        first = next(r for r in rows if r["type"] == "attempt")
        stages = ["baseline", "iteration", "iteration", "iteration", "final"]
        assert [r["stage"] for r in enqueued] == stages
        assert not any(r["type"] == "delivered" for r in rows)
        # The first attempt (baseline) hung for its full timeout; the loop handed over
        # every later event, the final one included, before that attempt ended.
        assert first["error"] and first["elapsed_ms"] >= 4000
        assert _ts(enqueued[-1]["at"]) < _ts(first["at"]) + first["elapsed_ms"] / 1000
    finally:
        server.stop()
        rx.stop()
