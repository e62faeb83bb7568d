"""The DESIGN appendix curl examples against a real API, and webhook delivery to a
real receiver: stages, signatures, a receiver that is down, failing, refusing, hanging."""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook

from codreamer.api.service import webhook_summary
from codreamer.store.paths import RunPaths
from codreamer.webhooks.outbox import read_outbox
from tests.support.api import ApiServer, weave_request
from tests.support.paths import REPO
from tests.support.receiver import Receiver

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


STAGE_RANK = {"baseline": 0, "iteration": 1, "final": 2}


def _stages(rx: Receiver, run_id: str) -> list[tuple[str, int | None]]:
    """The events a run's receiver acknowledged, in run order (each event is delivered
    on its own, so arrival order may differ)."""
    # Not deduplicated: each webhook-id is acknowledged exactly once (the run's own
    # sender and the API's dispatcher both work the outbox, through per-event claims).
    got = [(r.stage, r.json["iteration"]) for r in rx.ok() if r.json["run_id"] == run_id]
    return sorted(got, key=lambda x: (x[1], STAGE_RANK[x[0]]))


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
        # A status that carries the latest email and the webhook tally. The tally is
        # read once the only sender has stopped: the receiver records a request before
        # it answers, and the sender writes `delivered` after reading the answer, so
        # right after the 8th request the last event may still say pending.
        assert server.status(full["run_id"])["latest_email"]
        server.stop()
        receiver.settle()
        assert len(receiver.ok()) == 8  # nothing twice
        st = webhook_summary(RunPaths(server.run_dir(full["run_id"])))
    finally:
        server.stop()
    assert st["final"] == "delivered"
    assert {k: st[k] for k in ("delivered", "failed", "pending")} == {
        "delivered": 4,
        "failed": 0,
        "pending": 0,
    }


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
    # Down (connection refused) for the whole run; it comes up once the run is over
    # and its process has exited: the API's dispatcher carries on with the schedule.
    run = server.post_run({**weave_request(), **SMALL})
    assert server.wait(run["run_id"])["status"] == "succeeded"
    deadline = time.monotonic() + 30
    while not any(r["type"] == "attempt" for r in server.webhook_rows(run["run_id"])):
        assert time.monotonic() < deadline, "no attempt made while the receiver was down"
        time.sleep(0.1)
    rx.start()
    got = rx.wait_for(4, timeout=30)
    assert sorted((r.stage, r.json["iteration"]) for r in got) == [
        ("baseline", 0),
        ("final", 2),
        ("iteration", 1),
        ("iteration", 2),
    ]
    server.stop()  # the only sender: what it sent has reached the receiver, or nothing
    rx.settle()
    assert len(rx.received) == 4  # nothing twice
    rows = server.webhook_rows(run["run_id"])
    assert any(r["type"] == "attempt" and r["error"] for r in rows)  # it was refused at first


def test_a_failing_event_never_holds_back_the_others_and_4xx_is_final(scripted) -> None:
    """The baseline 500s forever, iteration 1 gets a 400: iteration 2 and the final
    event still arrive at once; the 400 is given up on (visibly), the 500 retried."""
    server, rx = scripted

    def respond(body: dict) -> int:
        if body["stage"] == "baseline":
            return 500
        return 400 if (body["stage"], body["iteration"]) == ("iteration", 1) else 200

    rx.respond = respond
    rx.start()
    run = server.post_run({**weave_request(), **SMALL})
    assert server.wait(run["run_id"])["status"] == "succeeded"
    got = rx.wait_for(2, timeout=30)
    assert sorted((r.stage, r.json["iteration"]) for r in got) == [("final", 2), ("iteration", 2)]
    # The receiver has answered; the sender records each answer just after, so wait
    # for the whole tally asserted below (breaking at `failed == 1` alone once read
    # `delivered == 1`: the last acknowledgement not written yet).
    deadline = time.monotonic() + 30
    while True:
        hooks = server.status(run["run_id"])["webhooks"]
        if (hooks["delivered"], hooks["failed"]) == (2, 1) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert hooks["delivered"] == 2 and hooks["failed"] == 1 and hooks["pending"] == 1
    (given_up,) = hooks["given_up"]
    assert given_up["stage"] == "iteration" and given_up["status_code"] == 400
    assert hooks["next_attempt_at"] is not None  # the baseline keeps its schedule
    # The baseline's retry comes on its own schedule (0.2 s, then more), which on a
    # quiet machine can be after the other events settle: wait for it, don't race it.
    got = rx.wait_until(lambda rs: sum(r.stage == "baseline" for r in rs) >= 2, timeout=30)
    baseline = [r for r in got if r.stage == "baseline"]
    assert len(baseline) >= 2 and {r.status for r in baseline} == {500}
    events = [
        json.loads(x)
        for x in (server.run_dir(run["run_id"]) / "events.jsonl").read_text().splitlines()
    ]
    assert [e["type"] for e in events].count("webhook_failed") == 1
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_pending_events_go_out_after_the_api_is_killed_and_restarted(tmp_path: Path) -> None:
    """SIGKILL the API and every process it started while its events are pending
    (receiver down); a new API on the same results store delivers them, exactly once
    per webhook-id, with no manual step."""
    rx = Receiver()
    server = ApiServer(tmp_path, {"FRONTEND_URL": rx.url}).start()
    try:
        run = server.post_run({**weave_request(), **SMALL})
        assert server.wait(run["run_id"])["status"] == "succeeded"
        os.killpg(server.proc.pid, signal.SIGKILL)  # the API, its fork server, its runs
        server.proc.wait(15)
        rx.start()
        # Every process that could send is dead: the receiver, listening now and
        # settled (a request of its own went through behind any other), has nothing.
        rx.settle()
        assert rx.received == []  # nobody is left to deliver
        server = ApiServer(tmp_path, {"FRONTEND_URL": rx.url}, port=server.port).start()
        rx.wait_for(4, timeout=30)
        server.stop()  # then whatever it sent has been answered and recorded
        rx.settle()
        assert sorted(rx.ok_ids()) == sorted(
            f"msg_{run['run_id']}_{stage}_{k}"
            for stage, k in (("baseline", 0), ("iteration", 1), ("iteration", 2), ("final", 2))
        )
        outbox = read_outbox(server.run_dir(run["run_id"]) / "webhooks.jsonl")
        assert [ev.status for ev in outbox.values()] == ["delivered"] * 4
    finally:
        server.stop()
        rx.stop()


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
