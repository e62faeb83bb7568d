"""The body of the `codreamer.run` task (celery mode, DESIGN §6): execute (or resume) a
run on this worker, if no other worker holds it.

A run task is idempotent: it executes nothing unless it takes the run's lease, and
resumes the run from its files when it does, so a task delivered twice (a
redelivery, a reaper's requeue) is harmless. Liveness is the lease (a Redis key with
a time-to-live, renewed while the run executes), not the flock of local mode."""

from __future__ import annotations

import os
from typing import Any

from codreamer.config import Settings
from codreamer.models import utc_now_iso
from codreamer.runs.celery.keys import LIVE_SET, cancel_key, run_lease_key
from codreamer.runs.celery.leases import Lease, RedisEventClaims, redis_client
from codreamer.runs.celery.webhook_tasks import WebhookTasks
from codreamer.runs.execute import execute_run
from codreamer.runs.lifeline import exit_with_parent
from codreamer.store.events import EventLog
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths, check_run_id
from codreamer.store.status import TERMINAL_STATUSES


def run_task(settings: Settings, task: Any, run_id: str) -> str:
    """Execute (or resume) a run on this worker; returns what became of it."""
    client = redis_client(settings.cluster)
    paths = RunPaths.for_run(settings.runs_dir, check_run_id(run_id))
    if not paths.meta.exists():
        client.srem(LIVE_SET, run_id)
        return "missing"
    lease = Lease(client, run_lease_key(run_id), settings.run_lease_ttl_s)
    if not lease.acquire():
        return "leased"  # another worker executes it; this delivery was a duplicate
    stop_renewing = None
    try:
        status = read_meta(paths).status
        if status in TERMINAL_STATUSES:
            return str(status)
        if client.exists(cancel_key(run_id)):
            update_meta(paths, status="cancelled", finished_at=utc_now_iso())
            EventLog(paths.events).emit("run_cancelled")
            return "cancelled"
        # A prefork child whose worker was SIGKILLed must stop at once: its run now
        # belongs to the next worker, which resumes it from the files.
        exit_with_parent()
        stop_renewing = lease.keep_alive(on_lost=lambda: os._exit(75))

        def should_stop() -> bool:
            if paths.cancel_request.exists():
                return True
            try:
                return bool(client.exists(cancel_key(run_id)))
            except Exception:
                return False

        result = execute_run(
            paths,
            settings,
            should_stop=should_stop,
            drain_s=min(2.0, settings.webhook_drain_timeout_s),
            claims=RedisEventClaims(client, settings.webhook_timeout_s),
            # Its events go out as delivery tasks, enqueued as the run records them.
            submit_webhook=WebhookTasks(task.app, settings, client).submit,
        )
        return str(getattr(result, "status", "done"))
    finally:
        if stop_renewing is not None:
            stop_renewing.set()
        try:
            if read_meta(paths).status in TERMINAL_STATUSES:
                client.srem(LIVE_SET, run_id)
                client.delete(cancel_key(run_id))
        finally:
            lease.release()
