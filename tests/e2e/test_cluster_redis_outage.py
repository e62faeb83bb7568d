"""Celery mode through real Redis outages: redis-server SIGKILLed and restarted on the
same port, twice, with runs going. The API answers 503 with Retry-After while Redis
is down; afterwards every run's webhooks arrive, with no manual step."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import httpx

from tests.support.api import weave_request
from tests.support.cluster import CELERY_E2E, RedisServer, Worker, cluster_env, replica
from tests.support.receiver import Receiver

pytestmark = CELERY_E2E

BODY = {"iterations": 1, "depth": 3, "group_size": 2}
STAGES = 3  # baseline, iteration 1, final


def test_a_redis_outage_ends_by_itself(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    results = tmp_path / "shared-results"
    with Receiver() as rx:
        env = cluster_env(
            redis,
            results,
            FRONTEND_URL=rx.url,
            CODREAMER_WEBHOOK_SCHEDULE=",".join(["0", "0.5"] + ["1"] * 60),
            CODREAMER_WEBHOOK_TIMEOUT="2",
            CODREAMER_RUN_LEASE_TTL="4",
        )
        worker = Worker(tmp_path / "worker", env)
        api = replica(tmp_path / "replica", env, results)
        try:
            worker.start()
            api.start()
            runs = [api.post_run({**weave_request(), **BODY})["run_id"]]
            rx.wait_for(STAGES, timeout=90)

            for _outage in range(2):
                redis.stop()  # SIGKILL
                health = httpx.get(api.url + "/healthz", timeout=20)
                assert health.status_code == 503, health.text
                assert "unreachable" in health.json()["checks"]["broker"]
                r = httpx.post(api.url + "/learn-loop", json=BODY, timeout=30)
                assert r.status_code == 503, r.text
                assert r.headers["retry-after"] == "5"
                assert r.json()["problems"][0]["where"] == "broker"

                redis.start()  # the same port, empty (no persistence): a fresh broker
                runs.append(api.post_run({**weave_request(), **BODY})["run_id"])
                # Every run so far, this one included, ends and is delivered.
                rx.wait_for(STAGES * len(runs), timeout=120)
                for run_id in runs:
                    assert api.wait(run_id, timeout=120)["status"] == "succeeded"
            delivered = {(x.json["run_id"], x.stage) for x in rx.ok()}
            assert len(delivered) == STAGES * len(runs)
            assert httpx.get(api.url + "/healthz", timeout=10).status_code == 200
        finally:
            api.stop()
            worker.stop()
            redis.stop()


def _companions(worker: Worker) -> list[int]:
    """Pids of the worker's webhook companions, in start order: Celery names each
    `codreamer-webhooks-<pid>@host` in the log when it is ready (it rewrites process
    titles, so /proc cannot tell them apart)."""
    text = worker.log.read_text(errors="replace")
    return [int(p) for p in re.findall(r"codreamer-webhooks-(\d+)@\S+ ready", text)]


def test_a_dead_webhook_companion_is_restarted(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    results = tmp_path / "shared-results"
    with Receiver() as rx:
        env = cluster_env(redis, results, FRONTEND_URL=rx.url, CODREAMER_WEBHOOK_TIMEOUT="2")
        worker = Worker(tmp_path / "worker", env)
        api = replica(tmp_path / "replica", env, results)
        try:
            worker.start()
            api.start()
            api.post_run({**weave_request(), **BODY})
            rx.wait_for(STAGES, timeout=90)
            [companion] = _companions(worker)
            assert worker.owns(companion)
            os.kill(companion, signal.SIGKILL)  # as the outage's "Unrecoverable error" did
            run_id = api.post_run({**weave_request(), **BODY})["run_id"]
            got = rx.wait_for(2 * STAGES, timeout=90)
            assert {x.json["run_id"] for x in got} >= {run_id}
            assert _companions(worker)[-1] != companion  # a new one took over
            assert "webhook companion exited" in worker.log.read_text()
        finally:
            api.stop()
            worker.stop()
            redis.stop()
