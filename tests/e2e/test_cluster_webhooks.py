"""Celery mode, webhooks on their own: a receiver that answers 500 to the baseline
event forever still gets the iteration and final events, exactly once each, while
the baseline follows its (short) schedule to the end and is reported given up.

Real parts only: Debian's redis-server on loopback, one `codreamer worker` and one
`codreamer api` replica as separate processes sharing a results directory, a real
receiver."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from tests.support.api import weave_request
from tests.support.cluster import CELERY_E2E, RedisServer, Worker, cluster_env, replica
from tests.support.receiver import Receiver

pytestmark = CELERY_E2E

SCHEDULE = "0,0.3,0.3,0.3"  # 4 attempts, about a second from first to last
ITERATIONS = 2


def test_a_receiver_failing_the_baseline_forever_still_gets_the_rest(tmp_path: Path) -> None:
    rx = Receiver(respond=lambda body: 500 if body["stage"] == "baseline" else 200)
    redis = RedisServer(tmp_path / "redis").start()
    results = tmp_path / "shared-results"
    env = cluster_env(
        redis,
        results,
        FRONTEND_URL=rx.url,
        CODREAMER_WEBHOOK_SCHEDULE=SCHEDULE,
        CODREAMER_RUN_LEASE_TTL="4",
    )
    worker = Worker(tmp_path / "worker", env)
    api = replica(tmp_path / "replica", env, results)
    try:
        rx.start()
        worker.start()
        api.start()
        body = {**weave_request(), "iterations": ITERATIONS, "depth": 3, "group_size": 4}
        run_id = api.post_run(body)["run_id"]

        deadline = time.monotonic() + 45
        while True:
            st = api.status(run_id)
            hooks = st["webhooks"]
            settled = hooks["pending"] == 0 and hooks["delivered"] + hooks["failed"] >= 4
            if st["status"] == "succeeded" and settled:
                break
            assert st["status"] in ("queued", "running", "succeeded"), st
            assert time.monotonic() < deadline, f"not settled in time: {st['status']} {hooks}"
            time.sleep(0.2)
        # In celery mode only worker tasks send: with the worker stopped and the
        # receiver's in-flight requests answered, a stray attempt would be counted.
        worker.stop()
        rx.settle()
        hooks = api.status(run_id)["webhooks"]

        ok = Counter((r.stage, r.json["iteration"]) for r in rx.ok())
        assert ok == Counter({("iteration", 1): 1, ("iteration", 2): 1, ("final", 2): 1})
        baseline = [r for r in rx.received if r.stage == "baseline"]
        assert [r.status for r in baseline] == [500] * len(SCHEDULE.split(","))
        assert len({r.headers["webhook-id"] for r in baseline}) == 1  # one event, retried

        assert hooks["delivered"] == 3 and hooks["failed"] == 1, hooks
        (given_up,) = hooks["given_up"]
        assert given_up["stage"] == "baseline" and given_up["status_code"] == 500
        assert given_up["attempts"] == len(SCHEDULE.split(","))
    finally:
        api.stop()
        worker.stop()
        rx.stop()
        redis.stop()
