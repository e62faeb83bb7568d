"""The Celery app of a deployment (celery mode, DESIGN §6), with its two tasks
registered on it and bound to the settings it was made with: `codreamer.run`
(run_task.py) and `codreamer.deliver_webhook` (webhook_tasks.py).

Celery's own mechanisms carry the run: late acks and reject-on-worker-lost (a run
whose worker process dies goes back to the queue), routing (`art` runs to a GPU
queue), revoke (a queued run that is cancelled). Two things Celery cannot do across
machines are done with Redis: liveness (leases.py) and the cluster-wide admission
limit (executor.py)."""

from __future__ import annotations

from typing import Any

from celery import Celery

from codreamer.config import Settings
from codreamer.runs.celery.keys import DELIVER_TASK, RUN_TASK
from codreamer.runs.celery.run_task import run_task
from codreamer.runs.celery.webhook_tasks import MAX_DELIVERY_RETRIES, deliver_task


def make_celery(settings: Settings) -> Any:
    app = Celery("codreamer", broker=settings.broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,  # a message is acked when its run ends, not when it starts
        task_reject_on_worker_lost=True,  # a run whose process died goes back to the queue
        worker_prefetch_multiplier=1,  # a worker holds only the runs it executes
        task_ignore_result=True,  # run state lives in the shared results store
        task_default_queue=settings.celery_queue,
        task_routes={DELIVER_TASK: {"queue": settings.celery_webhook_queue}},
        broker_transport_options={"visibility_timeout": settings.celery_visibility_timeout_s},
        broker_connection_retry_on_startup=True,
        # Reconnect to Redis for as long as it takes (Celery's default gives up after
        # 100 attempts and the worker exits): an outage must end by itself.
        broker_connection_retry=True,
        broker_connection_max_retries=None,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )

    # The tasks close over the settings the app was made with (the worker's, passed
    # down from its command): a task body fetches none. Not shared: Celery would
    # otherwise offer each app's closure to every other app made in the process.
    @app.task(name=RUN_TASK, bind=True, shared=False, acks_late=True, reject_on_worker_lost=True)
    def run(task: Any, run_id: str) -> str:
        return run_task(settings, task, run_id)

    # A delivery whose worker died mid-attempt goes back to the queue; its claim in
    # Redis expires, and the task (or a duplicate) finds the event as the outbox says.
    # The outbox's schedule bounds the attempts (100 at most); Celery's own default of
    # 3 retries would cut a chain short and leave the event to the safety net.
    @app.task(
        name=DELIVER_TASK,
        bind=True,
        shared=False,
        acks_late=True,
        reject_on_worker_lost=True,
        max_retries=MAX_DELIVERY_RETRIES,
    )
    def deliver(task: Any, run_id: str, webhook_id: str, attempts: int | None = None) -> str:
        return deliver_task(settings, task, run_id, webhook_id, attempts)

    return app
