"""Celery mode end to end, with real parts only: Debian's redis-server, two `codreamer
worker` processes and two `codreamer api` replicas, each in its own working
directory, sharing one results directory; a real receiver that is down for the
first 60 s. One scenario, because the failures overlap in time as they would in
life:

- 12 runs posted across both replicas (the 13th gets 429: the limit is cluster-wide);
  every run is held at its first event meanwhile (a test hook, codreamer/store/gate.py),
  so none can finish early and free a slot;
- a worker is SIGKILLed (with its pool) while its run is held inside an iteration:
  its run finishes on the other worker, with files identical to those of the same
  run left uninterrupted;
- a replica is SIGKILLed: no run notices; restarted, it reports what the other does;
- the receiver comes up after 60 s: every event arrives, once per webhook-id, with
  no manual step (counted after every sender has stopped and the receiver has
  answered all it was sent, so a late duplicate cannot slip past).
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from codreamer.webhooks.outbox import read_outbox, summarize
from tests.support.api import weave_request
from tests.support.cluster import CELERY_E2E, RedisServer, Worker, cluster_env, replica
from tests.support.event_gate import EventGate
from tests.support.receiver import Receiver

pytestmark = CELERY_E2E

DOWN_S = 60.0
# Retries every 2 s for about 3 minutes: long enough to outlast the 60 s outage.
SCHEDULE = ",".join(["0", "1", "1"] + ["2"] * 90)
SMALL = {"iterations": 2, "depth": 3, "group_size": 4}
# Long enough to be killed in the middle of an iteration.
LONG = {"iterations": 4, "depth": 4, "group_size": 96, "seed": 7}
# The last event a run writes, however it ends.
ENDED_EVENTS = {"run_finished", "run_failed", "run_cancelled"}


def _status(url: str, run_id: str) -> dict:
    r = httpx.get(f"{url}/runs/{run_id}", timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def test_two_replicas_two_workers_survive_kills_and_a_receiver_outage(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    results = tmp_path / "shared-results"
    rx = Receiver(down_for_s=DOWN_S)
    gate = EventGate()
    gate.hold(lambda _run, e: e["type"] == "run_started")
    env = cluster_env(
        redis,
        results,
        FRONTEND_URL=rx.url,
        CODREAMER_WEBHOOK_SCHEDULE=SCHEDULE,
        CODREAMER_RUN_LEASE_TTL="4",
        CODREAMER_MAX_CONCURRENT_RUNS="2",
        CODREAMER_MAX_QUEUED_RUNS="10",
        **gate.env,
    )
    workers = [Worker(tmp_path / f"worker-{i}", env) for i in range(2)]
    replicas = [replica(tmp_path / f"replica-{i}", env, results) for i in range(2)]
    try:
        rx.start()  # listening only after DOWN_S
        t_down = time.monotonic()
        for w in workers:
            w.start()
        for r in replicas:
            r.start()
        r1, r2 = replicas

        # Two identical long runs first (one per worker, held as they start), then
        # ten small ones that wait behind them.
        body = {**weave_request(), **LONG}
        long_a = r1.post_run(body)["run_id"]
        long_b = r2.post_run(body)["run_id"]
        started = {gate.next_held().run_id, gate.next_held().run_id}
        assert started == {long_a, long_b}
        small = [
            (r1 if i % 2 else r2).post_run({**weave_request(), **SMALL, "seed": i})["run_id"]
            for i in range(10)
        ]
        full = httpx.post(f"{r1.url}/learn-loop", json={**weave_request(), **SMALL}, timeout=10)
        assert full.status_code == 429 and "retry-after" in full.headers

        # Let them go; hold long_a once it is inside iteration 1 and kill its worker there.
        inside = {long_a: False}

        def first_step_of_long_a(run_id: str, e: dict) -> bool:
            if run_id != long_a or inside[long_a] or e["type"] != "step_started":
                return False
            inside[long_a] = e.get("iteration") == 1
            return inside[long_a]

        gate.hold(first_step_of_long_a)
        gate.release_waiting()
        held = gate.next_held(timeout=120)
        assert held.run_id == long_a
        victim = next(w for w in workers if w.owns(held.pid))
        survivor = next(w for w in workers if w is not victim)
        # From now on each run shows its last event at the gate: that is how the test
        # knows every run has ended (no polling of their statuses).
        gate.hold(lambda _run, e: e["type"] in ENDED_EVENTS)
        victim.kill()
        gate.release_waiting()
        r2.kill()  # a replica dies too: no run may notice

        every = [long_a, long_b, *small]
        ended: list[str] = []
        while len(ended) < len(every):
            last = gate.next_held(timeout=240)
            ended.append(last.run_id)
            last.release()
        assert sorted(ended) == sorted(every)  # each run ended once
        final = {rid: _status(r1.url, rid) for rid in every}
        assert {s["status"] for s in final.values()} == {"succeeded"}, final

        # long_a was resumed from its files by the other worker and ends as long_b did.
        events = [e["type"] for e in map(_json, (r1.run_dir(long_a) / "events.jsonl").open())]
        assert "run_requeued" in events and "run_resumed" in events
        assert victim.proc is not None and victim.proc.poll() is not None
        assert survivor.proc is not None and survivor.proc.poll() is None
        dir_a, dir_b = r1.run_dir(long_a), r1.run_dir(long_b)
        compared = 0
        for ref in sorted(dir_b.glob("iter*")) + [dir_b / "final_email.json"]:
            assert (dir_a / ref.name).read_bytes() == ref.read_bytes(), ref.name
            compared += 1
        assert compared >= 4 * 5

        # The replica comes back: both answer the same for every run.
        r2.start()
        for rid in every:
            a, b = _status(r1.url, rid), _status(r2.url, rid)
            assert (a["status"], a["progress"], a["metrics"]) == (
                b["status"],
                b["progress"],
                b["metrics"],
            )

        # The receiver is up after its outage: everything arrives, once per id.
        expected = 2 * (LONG["iterations"] + 2) + 10 * (SMALL["iterations"] + 2)
        assert time.monotonic() - t_down < DOWN_S + 120
        rx.wait_for(expected, timeout=DOWN_S + 120)
        # Every sender stops, then the receiver answers what is still on its way: a
        # duplicate, if there were one, is in the count.
        for server in replicas:
            server.stop()
        for w in workers:
            w.stop()
        rx.settle()
        ids = rx.ok_ids()
        assert len(ids) == expected and len(set(ids)) == expected
        # Only now is every outbox final. The receiver records a request before it
        # answers, and the sender writes `delivered` after reading that answer, so an
        # outbox read as soon as the last request arrived can still say pending.
        for rid in every:
            hooks = summarize(read_outbox(r1.run_dir(rid) / "webhooks.jsonl"))
            assert hooks["pending"] == 0 and hooks["failed"] == 0, (rid, hooks)
    finally:
        gate.close()
        for r in replicas:
            r.stop()
        for w in workers:
            w.stop()
        rx.stop()
        redis.stop()


def _json(line: str) -> dict:
    import json

    return json.loads(line)
