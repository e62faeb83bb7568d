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
- The reaper (in every replica and worker): a run `running` in the store whose
  lease has expired lost its worker (SIGKILL, power cut). It is published again,
  once cluster-wide, and the next worker resumes it from its files.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from codreamer.config import Settings
from codreamer.errors import (
    BrokerUnavailableError,
    QueueFullError,
    RunNotFoundError,
    RunStateError,
)
from codreamer.loop.config import LoopConfig
from codreamer.models import utc_now_iso
from codreamer.runs.celery_app import (
    LIVE_SET,
    RUN_TASK,
    cancel_key,
    make_celery,
    queue_for,
    redis_client,
    task_key,
)
from codreamer.runs.redis_leases import PREFIX, RedisEventClaims, run_lease_key
from codreamer.runs.webhook_tasks import WebhookTasks
from codreamer.store.events import EventLog
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths, check_run_id
from codreamer.store.status import RESUMABLE_STATUSES, TERMINAL_STATUSES

log = logging.getLogger(__name__)


def publish(app: Any, settings: Settings, client: Any, paths: RunPaths) -> None:
    """Send the run's task to the queue its policy routes to."""
    policy = LoopConfig.from_meta(read_meta(paths)).policy
    result = app.send_task(RUN_TASK, args=[paths.run_id], queue=queue_for(policy, settings))
    client.set(task_key(paths.run_id), result.id, ex=7 * 86400)


class ClusterServices:
    """Background work every replica and worker does: enqueue a delivery task for any
    webhook event due that no task carries (the safety net behind the tasks'
    own retries, webhook_tasks.py) and requeue runs whose worker died."""

    def __init__(self, settings: Settings, app: Any) -> None:
        self.settings = settings
        self.app = app
        self.client = redis_client(settings)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._dispatcher: Any = None
        self._missing_since: dict[str, float] = {}

    def start(self) -> ClusterServices:
        from codreamer.webhooks.dispatcher import Dispatcher

        claims = RedisEventClaims(self.client, self.settings.webhook_timeout_s)
        tasks = WebhookTasks(self.app, self.settings, self.client)
        self._dispatcher = Dispatcher.for_store(
            self.settings.runs_dir, self.settings, claims=claims, submit=tasks.submit
        ).start()
        self._thread = threading.Thread(target=self._reap_loop, name="run-reaper", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._dispatcher is not None:
            self._dispatcher.close()

    def _reap_loop(self) -> None:
        interval = max(0.5, self.settings.run_lease_ttl_s / 3)
        while not self._stop.wait(interval):
            try:
                self.reap()
            except Exception:  # Redis away for a moment: try again next time
                log.warning("reaper: %s", "Redis unreachable", exc_info=True)

    def reap(self) -> list[str]:
        """Requeue admitted runs marked running whose lease expired; forget ended runs."""
        requeued = []
        for raw in self.client.smembers(LIVE_SET):
            run_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            paths = RunPaths.for_run(self.settings.runs_dir, run_id)
            try:
                status = read_meta(paths).status
            except (OSError, ValueError):
                continue  # being created, or the store is briefly unreadable
            if status in TERMINAL_STATUSES:
                self.client.srem(LIVE_SET, run_id)
                continue
            if status != "running" or self.client.exists(run_lease_key(run_id)):
                self._missing_since.pop(run_id, None)
                continue
            # Missing for a whole TTL: a holder that was only slow has had time to take
            # its lease back (see redis_leases._RENEW); this one is gone.
            first = self._missing_since.setdefault(run_id, time.monotonic())
            if time.monotonic() - first < self.settings.run_lease_ttl_s:
                continue
            self._missing_since.pop(run_id, None)
            # Once cluster-wide, for a lease's lifetime: the other reapers skip it.
            guard = f"{PREFIX}:requeue:{run_id}"
            ttl_ms = int(self.settings.run_lease_ttl_s * 2000)
            if not self.client.set(guard, "1", nx=True, px=ttl_ms):
                continue
            EventLog(paths.events).emit("run_requeued", reason="its worker stopped renewing")
            publish(self.app, self.settings, self.client, paths)
            requeued.append(run_id)
        if requeued:
            log.warning("requeued %d run(s) whose worker died: %s", len(requeued), requeued)
        return requeued


def _broker_errors() -> tuple[type[BaseException], ...]:
    import redis
    from kombu.exceptions import OperationalError

    return (redis.RedisError, OperationalError, ConnectionError, TimeoutError)


def broker_guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """Redis unreachable inside an executor method: BrokerUnavailableError (the API's
    503 with Retry-After), never a bare 500."""

    @functools.wraps(method)
    def guarded(self: CeleryExecutor, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except _broker_errors() as exc:
            raise BrokerUnavailableError(type(exc).__name__, BROKER_RETRY_AFTER_S) from exc

    return guarded


BROKER_RETRY_AFTER_S = 5


class CeleryExecutor:
    """The run-manager interface of the API (same methods as runs.local.RunManager)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app = make_celery(settings)
        self.client = redis_client(settings)
        self._services: ClusterServices | None = None

    # -- paths ---------------------------------------------------------------
    def paths(self, run_id: str) -> RunPaths:
        paths = RunPaths.for_run(self.settings.runs_dir, check_run_id(run_id))
        if not paths.meta.exists():
            raise RunNotFoundError(run_id)
        return paths

    def new_paths(self, run_id: str) -> RunPaths:
        return RunPaths.for_run(self.settings.runs_dir, run_id)

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> list[str]:
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
        except _broker_errors():
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
        except _broker_errors() as exc:
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
