"""The celery executor's pieces against a real redis-server (no workers): leases,
cluster-wide admission, routing, cancel, and the reaper that requeues a run whose
worker died."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from codreamer.config import Settings
from codreamer.errors import QueueFullError, RunStateError
from codreamer.graph.store import GraphStore
from codreamer.loop.run_files import create_run
from codreamer.models import Prospect, Scenario
from codreamer.runs.celery.app import make_celery
from codreamer.runs.celery.executor import CeleryExecutor
from codreamer.runs.celery.keys import (
    DELIVER_TASK,
    LIVE_SET,
    RUN_TASK,
    cancel_key,
    run_lease_key,
)
from codreamer.runs.celery.leases import Lease, RedisEventClaims
from codreamer.runs.celery.services import ClusterServices
from codreamer.runs.spec import RunSpec
from codreamer.store.files import read_jsonl
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths, new_run_id
from tests.support.cli import codreamer_argv
from tests.support.cluster import RedisServer
from tests.support.paths import REPO

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("celery") is None
    and not os.environ.get("CODREAMER_TEST_REQUIRE_CELERY"),
    reason="needs the `celery` extra (uv sync --extra celery)",
)
WEAVE = REPO.parent / "shared" / "kg" / "weave-feedback-5.json"


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory):
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def redis(redis_server: RedisServer):
    client = redis_server.client()
    client.flushall()
    return client


def _settings(tmp_path: Path, redis_server: RedisServer, **kw: object) -> Settings:
    base: dict[str, object] = {
        "results_dir": tmp_path / "results",
        "data_dir": REPO / "data",
        "broker_url": redis_server.url,
        "max_concurrent_runs": 1,
        "max_queued_runs": 1,
        "run_lease_ttl_s": 1.0,
    }
    return Settings(**{**base, **kw})  # type: ignore[arg-type]


def _create(executor: CeleryExecutor, policy: str = "embedded") -> RunPaths:
    paths = executor.new_paths(new_run_id("api"))
    scenario = Scenario(prospect=Prospect(name="Alex Rivera", company="Acme"), goal="A call")
    config = RunSpec(iterations=1, group_size=4, policy=policy).loop_config([scenario])  # type: ignore[arg-type]
    store = GraphStore.from_json(json.loads(WEAVE.read_text()))
    executor.submit(paths.run_id, lambda: create_run(paths, store, config))
    return paths


def _queued_run_ids(redis, queue: str) -> list[str]:
    """The run ids of the task messages waiting in a queue (kombu's Redis lists)."""
    out = []
    for raw in redis.lrange(queue, 0, -1):
        message = json.loads(raw)
        assert message["headers"]["task"] == "codreamer.run"
        out.append(message["headers"]["argsrepr"].strip("[]()',\""))
    return out


def test_a_lease_is_exclusive_expires_and_only_its_holder_can_release(redis) -> None:
    a = Lease(redis, "codreamer:lease:run:x", ttl_s=0.5)
    b = Lease(redis, "codreamer:lease:run:x", ttl_s=0.5)
    assert a.acquire() and not b.acquire()
    b.release()  # not b's: nothing happens
    assert redis.get("codreamer:lease:run:x") == a.token
    assert a.renew() and not b.renew()
    time.sleep(0.7)  # a stops renewing (slow): the lease expires...
    assert a.renew()  # ...and a, only slow, takes it back while nobody else has
    time.sleep(0.7)
    assert b.acquire() and not a.renew()  # but not once another holder has it


def test_webhook_claims_give_each_event_one_sender(redis, tmp_path: Path) -> None:
    paths = RunPaths(tmp_path / "api-20250101-000000-aaaaaa")
    one, two = RedisEventClaims(redis, 5), RedisEventClaims(redis, 5)
    release = one.claim(paths, "msg_a")
    assert release is not None
    assert one.claim(paths, "msg_a") is None and two.claim(paths, "msg_a") is None
    other = two.claim(paths, "msg_b")  # one claim per event, not per run
    assert other is not None
    release()
    again = two.claim(paths, "msg_a")
    assert again is not None
    again()
    other()
    assert redis.ttl(f"codreamer:claim:webhook:{paths.run_id}:msg_a") == -2  # gone


def test_admission_is_cluster_wide_and_routes_art_to_the_gpu_queue(
    redis, redis_server, tmp_path: Path
) -> None:
    settings = _settings(tmp_path, redis_server)
    replica_a, replica_b = CeleryExecutor(settings), CeleryExecutor(settings)
    first = _create(replica_a)
    second = _create(replica_b, policy="art")
    with pytest.raises(QueueFullError):  # 1 + 1 places in the whole cluster
        _create(replica_a)
    assert len(list((tmp_path / "results" / "runs").iterdir())) == 2  # nothing written
    assert redis.smembers(LIVE_SET) == {first.run_id, second.run_id}
    assert _queued_run_ids(redis, "codreamer") == [first.run_id]
    assert _queued_run_ids(redis, "codreamer-gpu") == [second.run_id]

    # Cancel a queued run from the other replica: cancelled at once, its place freed,
    # and any worker that still gets its task skips it.
    assert replica_b.cancel(first.run_id) == "cancelled"
    assert read_meta(first).status == "cancelled"
    assert redis.exists(cancel_key(first.run_id))
    assert first.run_id not in redis.smembers(LIVE_SET)
    with pytest.raises(RunStateError):
        replica_a.cancel(first.run_id)
    assert replica_a.resume(first.run_id) == 0
    assert read_meta(first).status == "queued" and not redis.exists(cancel_key(first.run_id))


def test_the_reaper_requeues_a_running_run_whose_lease_expired(
    redis, redis_server, tmp_path: Path
) -> None:
    settings = _settings(tmp_path, redis_server, max_queued_runs=5)
    executor = CeleryExecutor(settings)
    paths = _create(executor)
    redis.delete("codreamer")  # the worker took the message...
    update_meta(paths, status="running")
    lease = Lease(redis, run_lease_key(paths.run_id), ttl_s=1.0)
    assert lease.acquire()  # ...and holds the run
    services = ClusterServices(settings, executor.app)
    assert services.reap() == []  # alive: left alone
    time.sleep(1.2)  # the worker dies: no renewal
    assert services.reap() == []  # missing, but a slow holder may still take it back
    time.sleep(1.1)
    assert services.reap() == [paths.run_id]
    assert services.reap() == []  # once, cluster-wide
    assert ClusterServices(settings, executor.app).reap() == []
    assert _queued_run_ids(redis, "codreamer") == [paths.run_id]
    assert "run_requeued" in [e["type"] for e in read_jsonl(paths.events)]
    # A run whose files say it ended leaves the admitted set.
    update_meta(paths, status="succeeded")
    services.reap()
    assert paths.run_id not in redis.smembers(LIVE_SET)


def test_worker_needs_a_broker(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODREAMER_")}
    done = subprocess.run(
        codreamer_argv("worker"),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "CODREAMER_BROKER_URL" in done.stderr


def test_each_app_registers_its_own_tasks(tmp_path: Path, redis_server: RedisServer) -> None:
    """Both tasks register on the app they were made with (each closing over that
    app's settings), never on another app of the same process."""
    first = make_celery(_settings(tmp_path / "a", redis_server))
    second = make_celery(_settings(tmp_path / "b", redis_server, celery_queue="other"))
    first.finalize()
    second.finalize()
    assert {RUN_TASK, DELIVER_TASK} <= set(first.tasks)
    assert {RUN_TASK, DELIVER_TASK} <= set(second.tasks)
    assert first.tasks[RUN_TASK] is not second.tasks[RUN_TASK]
    assert second.conf.task_default_queue == "other"
