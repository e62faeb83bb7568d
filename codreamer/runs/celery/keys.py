"""The names of everything the celery executor keeps in Redis and sends to the broker
(DESIGN §6), in one place: replicas and workers of one deployment must agree on them."""

from __future__ import annotations

PREFIX = "codreamer"
RUN_TASK = "codreamer.run"
DELIVER_TASK = "codreamer.deliver_webhook"
LIVE_SET = f"{PREFIX}:live"  # run ids admitted and not yet finished, cluster-wide


def run_lease_key(run_id: str) -> str:
    return f"{PREFIX}:lease:run:{run_id}"


def cancel_key(run_id: str) -> str:
    return f"{PREFIX}:cancel:{run_id}"


def task_key(run_id: str) -> str:
    return f"{PREFIX}:task:{run_id}"


def requeue_key(run_id: str) -> str:
    return f"{PREFIX}:requeue:{run_id}"


def claim_key(run_id: str, webhook_id: str) -> str:
    return f"{PREFIX}:claim:webhook:{run_id}:{webhook_id}"


def queued_key(run_id: str, webhook_id: str, attempts: int) -> str:
    """Marks an attempt of an event as carried by a delivery task (webhook_tasks.py)."""
    return f"{PREFIX}:queued:webhook:{run_id}:{webhook_id}:{attempts}"
