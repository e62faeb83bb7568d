"""Celery mode end to end, with real parts only: Debian's redis-server, two `codreamer
worker` processes and two `codreamer api` replicas, each in its own working
directory, sharing one results directory; a real receiver that is down for the
first 60 s. One scenario, because the failures overlap in time as they would in
life:

- 12 runs posted across both replicas (the 13th gets 429: the limit is cluster-wide);
- a worker is SIGKILLed (with its pool) mid-run: its run finishes on the other
  worker, with files identical to those of the same run left uninterrupted;
- a replica is SIGKILLed: no run notices; restarted, it reports what the other does;
- the receiver comes up after 60 s: every event arrives, once per webhook-id, with
  no manual step.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from api_support import Receiver, weave_request
from cluster_support import CELERY_E2E, RedisServer, Worker, cluster_env, replica

pytestmark = CELERY_E2E

DOWN_S = 60.0
# Retries every 2 s for about 3 minutes: long enough to outlast the 60 s outage.
SCHEDULE = ",".join(["0", "1", "1"] + ["2"] * 90)
SMALL = {"iterations": 2, "depth": 3, "group_size": 4}
# Long enough to be killed in the middle of an iteration.
LONG = {"iterations": 4, "depth": 4, "group_size": 96, "seed": 7}
TERMINAL = {"succeeded", "failed", "cancelled", "interrupted"}


def _status(url: str, run_id: str) -> dict:
    r = httpx.get(f"{url}/runs/{run_id}", timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def _wait(url: str, run_ids: list[str], timeout: float) -> dict[str, dict]:
    deadline = time.monotonic() + timeout
    while True:
        got = {rid: _status(url, rid) for rid in run_ids}
        if all(s["status"] in TERMINAL for s in got.values()):
            return got
        if time.monotonic() > deadline:
            left = {rid: s["status"] for rid, s in got.items() if s["status"] not in TERMINAL}
            raise AssertionError(f"runs not finished after {timeout}s: {left}")
        time.sleep(0.5)


def _holder_pid(redis, run_id: str) -> int | None:
    token = redis.get(f"codreamer:lease:run:{run_id}")
    return int(token.split(":")[1]) if token else None


def test_two_replicas_two_workers_survive_kills_and_a_receiver_outage(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    results = tmp_path / "shared-results"
    rx = Receiver(down_for_s=DOWN_S)
    env = cluster_env(
        redis,
        results,
        FRONTEND_URL=rx.url,
        CODREAMER_WEBHOOK_SCHEDULE=SCHEDULE,
        CODREAMER_RUN_LEASE_TTL="4",
        CODREAMER_MAX_CONCURRENT_RUNS="2",
        CODREAMER_MAX_QUEUED_RUNS="10",
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
        client = redis.client()

        # Two identical long runs first (one per worker), then ten small ones.
        body = {**weave_request(), **LONG}
        long_a = r1.post_run(body)["run_id"]
        long_b = r2.post_run(body)["run_id"]
        small = [
            (r1 if i % 2 else r2).post_run({**weave_request(), **SMALL, "seed": i})["run_id"]
            for i in range(10)
        ]
        full = httpx.post(f"{r1.url}/learn-loop", json={**weave_request(), **SMALL}, timeout=10)
        assert full.status_code == 429 and "retry-after" in full.headers

        # Kill the worker executing long_a once it is inside an iteration.
        deadline = time.monotonic() + 90
        while True:
            st = _status(r2.url, long_a)
            pid = _holder_pid(client, long_a)
            if st["status"] == "running" and (st["progress"].get("iteration") or 0) >= 1 and pid:
                break
            assert time.monotonic() < deadline, f"long run never got going: {st['status']}"
            time.sleep(0.2)
        victim = next(w for w in workers if w.owns(pid))
        survivor = next(w for w in workers if w is not victim)
        victim.kill()
        r2.kill()  # a replica dies too: no run may notice

        every = [long_a, long_b, *small]
        final = _wait(r1.url, every, timeout=240)
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
        time.sleep(3)  # room for a duplicate to show up, if there were one
        ids = rx.ok_ids()
        assert len(ids) == expected and len(set(ids)) == expected
        for rid in every:
            hooks = _status(r1.url, rid)["webhooks"]
            assert hooks["pending"] == 0 and hooks["failed"] == 0, (rid, hooks)
    finally:
        for r in replicas:
            r.stop()
        for w in workers:
            w.stop()
        rx.stop()
        redis.stop()


def _json(line: str) -> dict:
    import json

    return json.loads(line)
