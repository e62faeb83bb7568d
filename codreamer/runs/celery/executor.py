"""The celery executor's API side (DESIGN §6): stateless replicas over a shared store.

Any replica answers for any run: status comes from the shared results store,
liveness and limits from Redis, execution from the workers. Nothing a replica
holds in memory matters, so killing one affects no run.

- Admission, cluster-wide: a Redis set holds the ids of runs admitted and not yet
  finished; a run is admitted only while the set is smaller than
  `max_concurrent_runs + max_queued_runs`, else 429. Workers remove a run when
  it ends; the reaper removes any whose files say it ended.
- Cancel reaches a run wherever it is: a queued run is marked cancelled and its
  task revoked (and skipped by any worker that still gets it); a running one
  sees the shared cancel file or the Redis flag at its next step boundary.
- Webhooks: the replica runs the store-wide dispatcher and the lease reaper
  (services.py); `claims()` gives every sender of the deployment its Redis claims.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any

import redis
from kombu.exceptions import OperationalError

from codreamer.config import Settings
from codreamer.errors import (
    BrokerUnavailableError,
    QueueFullError,
    RunStateError,
)
from codreamer.models import utc_now_iso
from codreamer.runs.celery.app import make_celery
from codreamer.runs.celery.keys import LIVE_SET, cancel_key, run_lease_key, task_key
from codreamer.runs.celery.leases import RedisEventClaims, redis_client
from codreamer.runs.celery.services import ClusterServices, publish
from codreamer.store.events import EventLog
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths
from codreamer.store.status import RESUMABLE_STATUSES

BROKER_ERRORS: tuple[type[BaseException], ...] = (
    redis.RedisError,
    OperationalError,
    ConnectionError,
    TimeoutError,
)
BROKER_RETRY_AFTER_S = 5


def broker_guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """Redis unreachable inside an executor method: BrokerUnavailableError (the API's
    503 with Retry-After), never a bare 500."""

    @functools.wraps(method)
    def guarded(self: CeleryExecutor, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except BROKER_ERRORS as exc:
            raise BrokerUnavailableError(type(exc).__name__, BROKER_RETRY_AFTER_S) from exc

    return guarded


class CeleryExecutor:
    """The Executor (runs/executors.py) of an API replica: every run executes on a worker."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app = make_celery(settings)
        self.client = redis_client(settings.cluster)
        self._services: ClusterServices | None = None

    def claims(self) -> RedisEventClaims:
        """flock does not hold across machines, and the workers' and replicas'
        dispatchers claim in Redis, so every sender of the deployment (a CLI run on
        the shared store too) must."""
        return RedisEventClaims(self.client, self.settings.webhook_timeout_s)

    # -- paths ---------------------------------------------------------------
    def paths(self, run_id: str) -> RunPaths:
        return RunPaths.existing(self.settings.runs_dir, run_id)

    def new_paths(self, run_id: str) -> RunPaths:
        return RunPaths.for_run(self.settings.runs_dir, run_id)

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> list[str]:
        """The store-wide webhook dispatcher and the lease reaper (services.py)."""
        self._services = ClusterServices(self.settings, self.app).start()
        return []

    def shutdown(self, timeout: float = 5.0) -> None:
        if self._services is not None:
            self._services.stop()

    # -- submitting ----------------------------------------------------------
    def _admit(self, run_id: str) -> None:
        capacity = self.settings.max_concurrent_runs + self.settings.max_queued_runs
        self.client.sadd(LIVE_SET, run_id)
        if self.client.scard(LIVE_SET) > capacity:
            # Optimistic: two racing requests may both be refused for the last place,
            # but the limit is never passed.
            self.client.srem(LIVE_SET, run_id)
            raise QueueFullError(self.settings.queue_retry_after_s)

    @broker_guarded
    def submit(self, run_id: str, create: Callable[[], Any]) -> int:
        self._admit(run_id)
        try:
            create()
        except BaseException:
            self.client.srem(LIVE_SET, run_id)
            raise
        paths = self.new_paths(run_id)
        try:
            publish(self.app, self.settings, self.client, paths)
        except BROKER_ERRORS:
            # Written but never queued (the broker went away in between): left
            # interrupted, so `POST /runs/{id}/resume` queues it once Redis is back.
            update_meta(paths, status="interrupted", finished_at=utc_now_iso())
            EventLog(paths.events).emit("run_interrupted", reason="the broker was unreachable")
            raise
        return 0  # the broker does not say where in its queue a message is

    def queue_position(self, run_id: str) -> int | None:
        return None

    def broker_problem(self) -> str | None:
        try:
            self.client.ping()
        except BROKER_ERRORS as exc:
            return f"unreachable ({type(exc).__name__}); workers cannot get runs"
        return None

    @broker_guarded
    def is_active(self, run_id: str) -> bool:
        return bool(self.client.exists(run_lease_key(run_id)))

    # -- cancel / resume -----------------------------------------------------
    @broker_guarded
    def cancel(self, run_id: str) -> str:
        paths = self.paths(run_id)
        status = read_meta(paths).status
        if status == "running" and self.is_active(run_id):
            self.client.set(cancel_key(run_id), "1", ex=7 * 86400)
            paths.cancel_request.touch()
            return "cancelling"
        if status in ("queued", "running", "interrupted"):
            # Nothing executes it (yet): cancelled at once, and skipped by any worker
            # that still receives its task.
            self.client.set(cancel_key(run_id), "1", ex=7 * 86400)
            task_id = self.client.get(task_key(run_id))
            if task_id:
                with contextlib.suppress(Exception):
                    self.app.control.revoke(task_id.decode())
            update_meta(paths, status="cancelled", finished_at=utc_now_iso())
            EventLog(paths.events).emit("run_cancelled")
            self.client.srem(LIVE_SET, run_id)
            return "cancelled"
        raise RunStateError(
            f"run {run_id} is {status}; only a queued, running or interrupted run can be cancelled"
        )

    @broker_guarded
    def resume(self, run_id: str) -> int:
        paths = self.paths(run_id)
        status = read_meta(paths).status
        if status in ("queued", "running"):
            raise RunStateError(f"run {run_id} is already {status}")
        if self.is_active(run_id):
            raise RunStateError(
                f"run {run_id} is {status} but its worker is still finishing; retry shortly"
            )
        if status not in RESUMABLE_STATUSES:
            raise RunStateError(
                f"run {run_id} is {status}; only an interrupted, failed or cancelled run "
                "can be resumed"
            )
        self._admit(run_id)
        self.client.delete(cancel_key(run_id))
        paths.cancel_request.unlink(missing_ok=True)
        update_meta(paths, status="queued", finished_at=None)
        EventLog(paths.events).emit("run_queued", resumed=True)
        publish(self.app, self.settings, self.client, paths)
        return 0

    @broker_guarded
    def snapshot(self) -> dict[str, Any]:
        active: list[str] = []
        queued: list[str] = []
        for raw in self.client.smembers(LIVE_SET):
            run_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            (active if self.client.exists(run_lease_key(run_id)) else queued).append(run_id)
        return {
            "active": sorted(active),
            "queued": sorted(queued),
            "max_concurrent_runs": self.settings.max_concurrent_runs,
            "max_queued_runs": self.settings.max_queued_runs,
        }
