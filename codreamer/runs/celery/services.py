"""What every replica and worker of a celery deployment runs in the background
(DESIGN §6, §7), and how a run is published to its queue.

- The store-wide webhook dispatcher: it enqueues a delivery task for any event due
  that no task carries (the safety net behind the tasks' own retries,
  webhook_tasks.py), with claims in Redis.
- The reaper: a run `running` in the store whose lease has expired lost its worker
  (SIGKILL, power cut). It is published again, once cluster-wide, and the next
  worker resumes it from its files.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from codreamer.config import Settings
from codreamer.loop.config import LoopConfig
from codreamer.registry import POLICIES
from codreamer.runs.celery.keys import LIVE_SET, RUN_TASK, requeue_key, run_lease_key, task_key
from codreamer.runs.celery.leases import RedisEventClaims, redis_client
from codreamer.runs.celery.webhook_tasks import WebhookTasks
from codreamer.store.events import EventLog
from codreamer.store.meta import read_meta
from codreamer.store.paths import RunPaths
from codreamer.store.status import TERMINAL_STATUSES
from codreamer.webhooks.dispatcher import Dispatcher

log = logging.getLogger(__name__)


def queue_for(policy: str | None, settings: Settings) -> str:
    """A policy registered with queue "gpu" (art) runs on the GPU queue, every other
    run on the default one."""
    gpu = policy is not None and policy in POLICIES and POLICIES.get(policy).queue == "gpu"
    return settings.celery_gpu_queue if gpu else settings.celery_queue


def store_dispatcher(settings: Settings, app: Any, client: Any) -> Dispatcher:
    """The store-wide dispatcher of a celery deployment (not started): due events go
    out as delivery tasks, claimed in Redis."""
    claims = RedisEventClaims(client, settings.webhook_timeout_s)
    tasks = WebhookTasks(app, settings, client)
    return Dispatcher.for_store(settings.runs_dir, settings, claims=claims, submit=tasks.submit)


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
        self.client = redis_client(settings.cluster)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._dispatcher: Dispatcher | None = None
        self._missing_since: dict[str, float] = {}

    def start(self) -> ClusterServices:
        self._dispatcher = store_dispatcher(self.settings, self.app, self.client).start()
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
            guard = requeue_key(run_id)
            ttl_ms = int(self.settings.run_lease_ttl_s * 2000)
            if not self.client.set(guard, "1", nx=True, px=ttl_ms):
                continue
            EventLog(paths.events).emit("run_requeued", reason="its worker stopped renewing")
            publish(self.app, self.settings, self.client, paths)
            requeued.append(run_id)
        if requeued:
            log.warning("requeued %d run(s) whose worker died: %s", len(requeued), requeued)
        return requeued
