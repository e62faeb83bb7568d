"""Celery mode: webhook deliveries are Celery tasks on the workers, and a receiver that
fails, then recovers, gets every event exactly once per webhook-id, even with the
worker holding the retries SIGKILLed in between.

Real parts only: Debian's redis-server on loopback, `codreamer worker` processes
(each with its thread-pool companion for the webhook queue) and a `codreamer api`
replica as separate processes sharing a results directory, and a uvicorn receiver
that answers 503 until the test lets it recover.

What shows the deliveries are worker tasks: every attempt row of every outbox names
its sender, a `codreamer.deliver_webhook` task in a process of a worker's process
group (never the replica, never the run), and the worker log shows Celery retrying
the task with a countdown. What shows the safety net: the retries the first worker
held as ETA messages die with it; the dispatchers enqueue the events again, and the
second worker delivers them with no manual step.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from itertools import pairwise
from pathlib import Path

from tests.support.api import weave_request
from tests.support.cluster import CELERY_E2E, RedisServer, Worker, cluster_env, replica
from tests.support.receiver import IdReceiver
from tests.support.server import serve_in_thread

pytestmark = CELERY_E2E

SCHEDULE = ",".join(["0"] + ["1"] * 90)  # a retry a second for a minute and a half
ITERATIONS = 2
EXPECTED = ITERATIONS + 2  # baseline, each iteration, final
FAILED_BEFORE_KILL = 6


class FlakyReceiver(IdReceiver):
    """503 to everything until `recover()` (or to the first `fail_first` requests of
    each webhook-id), then 200."""

    def __init__(self, fail_first: int | None = None) -> None:
        self._ok = threading.Event()
        self.fail_first = fail_first
        super().__init__(self._decide)

    def _decide(self, webhook_id: str, seen: int) -> int:
        if self.fail_first is not None:
            return 503 if seen < self.fail_first else 200
        return 200 if self._ok.is_set() else 503

    def wait_ok(self, n: int, timeout: float) -> None:
        """Until `n` webhook-ids were answered 200 (woken by each request)."""
        got = self.wait_until(lambda reqs: len({w for w, s in reqs if s == 200}) >= n, timeout)
        assert got, Counter(self.requests)

    def recover(self) -> None:
        self._ok.set()


def _attempts(run_dir: Path) -> list[dict]:
    lines = (run_dir / "webhooks.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["type"] == "attempt"]


def _sender_pid(row: dict) -> int:
    # "task <celery task id> on <host>:<pid>"
    words = row["sender"].split()
    assert words[0] == "task" and words[2] == "on", row
    return int(words[3].rsplit(":", 1)[1])


def test_deliveries_are_worker_tasks_and_survive_a_failing_receiver_and_a_killed_worker(
    tmp_path: Path,
) -> None:
    rx = FlakyReceiver()
    redis = RedisServer(tmp_path / "redis").start()
    results = tmp_path / "shared-results"
    with serve_in_thread(rx.app) as base:
        env = cluster_env(
            redis,
            results,
            FRONTEND_URL=f"{base}/hook",
            CODREAMER_WEBHOOK_SCHEDULE=SCHEDULE,
            CODREAMER_RUN_LEASE_TTL="4",
        )
        first = Worker(tmp_path / "worker-1", env, ready_lines=2)  # with its webhook companion
        second = Worker(tmp_path / "worker-2", env, ready_lines=2)  # with its webhook companion
        api = replica(tmp_path / "replica", env, results)
        try:
            first.start()
            api.start()
            body = {**weave_request(), "iterations": ITERATIONS, "depth": 3, "group_size": 4}
            run_id = api.post_run(body)["run_id"]
            run_dir = api.run_dir(run_id)

            # The run ends; its events are failing and being retried by worker tasks.
            deadline = time.monotonic() + 60
            while True:
                st = api.status(run_id)
                # More failures than Celery's default of 3 retries would allow a task.
                failing = {w for w, n in rx.by_id(503).items() if n >= FAILED_BEFORE_KILL}
                if st["status"] == "succeeded" and len(failing) == EXPECTED:
                    break
                assert st["status"] in ("queued", "running", "succeeded"), st
                assert time.monotonic() < deadline, (st["status"], rx.by_id())
                time.sleep(0.2)
            assert api.status(run_id)["webhooks"]["pending"] == EXPECTED

            # So far every attempt was a task of the first worker (its webhook companion).
            before = _attempts(run_dir)
            assert before and all(first.owns(_sender_pid(r)) for r in before), before
            assert {_sender_pid(r) for r in before}.isdisjoint({first.pid, api.proc.pid})
            # Each retry went out on schedule (a 1 s countdown), none waited for the
            # dispatchers' safety net (which re-enqueues only after a marker's grace).
            at: dict[str, list[float]] = {}
            for r in before:
                at.setdefault(r["webhook_id"], []).append(_ts(r["at"]))
            gaps = [b - a for times in at.values() for a, b in pairwise(times)]
            assert gaps and max(gaps) < 5.0, sorted(gaps)[-5:]

            # The worker holding the retries dies with its companion; a new one starts.
            first.kill()
            killed_at = len(_attempts(run_dir))
            second.start()
            rx.recover()

            rx.wait_ok(EXPECTED, timeout=90)
            # Only worker tasks send: once the workers have stopped and the receiver has
            # answered what reached it, a duplicate would be in the count.
            second_pids = second.members()
            for w in (first, second):
                w.stop()
            rx.wait_idle()

            ok = rx.by_id(200)
            assert len(ok) == EXPECTED and set(ok.values()) == {1}, ok
            hooks = api.status(run_id)["webhooks"]
            assert hooks["delivered"] == EXPECTED and hooks["pending"] == 0, hooks

            # Every request the receiver saw is an attempt row, made by a worker task.
            rows = _attempts(run_dir)
            assert Counter(r["webhook_id"] for r in rows) == rx.by_id()
            after = rows[killed_at:]
            assert after and all(_sender_pid(r) in second_pids for r in after), after
            assert {_sender_pid(r) for r in after}.isdisjoint({second.pid, api.proc.pid})
            assert all(r["outcome"] == "delivered" for r in after if r["status_code"] == 200)
            # Celery's own retries carried the schedule (countdowns, not a polling loop).
            assert "codreamer.deliver_webhook" in first.log.read_text()
            assert "retry: Retry in" in first.log.read_text()
            for w in (first, second):
                assert "raised unexpected" not in w.log.read_text(), w.log.read_text()[-3000:]
        finally:
            api.stop()
            for w in (first, second):
                w.stop()
            redis.stop()


def test_a_delay_beyond_half_the_visibility_timeout_is_left_to_the_dispatchers(
    tmp_path: Path,
) -> None:
    """Visibility timeout 4 s: a retry 0.5 s away is a task countdown, one 4 s away is
    not held as an ETA; a dispatcher enqueues it when due, never sooner."""
    rx = FlakyReceiver(fail_first=2)
    redis = RedisServer(tmp_path / "redis").start()
    results = tmp_path / "shared-results"
    with serve_in_thread(rx.app) as base:
        env = cluster_env(
            redis,
            results,
            FRONTEND_URL=f"{base}/hook",
            CODREAMER_WEBHOOK_SCHEDULE="0,0.5,4",
            CODREAMER_CELERY_VISIBILITY_TIMEOUT="4",
            CODREAMER_RUN_LEASE_TTL="4",
        )
        worker = Worker(tmp_path / "worker", env, ready_lines=2)  # with its webhook companion
        api = replica(tmp_path / "replica", env, results)
        try:
            worker.start()
            api.start()
            body = {**weave_request(), "iterations": ITERATIONS, "depth": 3, "group_size": 4}
            run_id = api.post_run(body)["run_id"]
            rx.wait_ok(EXPECTED, timeout=60)
            worker_pids = worker.members()
            worker.stop()  # the only sender: then what reached the receiver is all
            rx.wait_idle()

            ok = rx.by_id(200)
            assert len(ok) == EXPECTED and set(ok.values()) == {1}, ok
            rows = _attempts(api.run_dir(run_id))
            assert Counter(r["webhook_id"] for r in rows) == Counter({w: 3 for w in ok})
            assert all(_sender_pid(r) in worker_pids for r in rows)
            at: dict[str, list[float]] = {}
            for r in rows:
                at.setdefault(r["webhook_id"], []).append(_ts(r["at"]))
            for times in at.values():
                assert times[2] - times[1] >= 4.0 - 0.05  # the schedule, never sooner
            log = worker.log.read_text()
            assert log.count("a dispatcher enqueues it when due") == EXPECTED
            countdowns = [float(x.split("s")[0]) for x in log.split("retry: Retry in ")[1:]]
            assert len(countdowns) >= EXPECTED and max(countdowns) < 2.0, countdowns
        finally:
            api.stop()
            worker.stop()
            redis.stop()


def _ts(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
