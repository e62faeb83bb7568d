"""Webhook delivery as Celery tasks (celery mode, DESIGN §7).

Each attempt at an event is a `codreamer.deliver_webhook(run_id, webhook_id, attempts)`
task (`attempts`: how many attempts the event had when the task was enqueued)
on the webhook queue (CODREAMER_CELERY_WEBHOOK_QUEUE), which `codreamer worker`
consumes by default on a thread pool of its own (deliveries are I/O and must
never wait behind runs). The task is enqueued:

- at once when the run records the event (the run's dispatcher submits it);
- for each retry, by the task itself: `self.retry(countdown=...)` at the delay the
  outbox recorded (the schedule's, or the receiver's Retry-After if longer);
- by the store-wide dispatcher of every replica and worker, for any event due that
  no task is known to carry (the safety net: after a restart, a lost message, a
  delay too long to hold as an ETA).

Correctness does not rest on the broker delivering once: the task body takes the
event's claim, reads the outbox again, and attempts only an event still due
(webhooks.sender.send_if_due). A duplicate or redelivered task (Redis requeues an
unacknowledged message after its visibility timeout) finds the event delivered or
not yet due and does nothing.

Long delays are not held as ETAs. A worker keeps an ETA message unacknowledged
until it runs, and Redis hands it to a second worker after the visibility
timeout; so a retry is scheduled as a countdown only if it falls within half the
visibility timeout, and later ones are left to the dispatchers, which enqueue
the event when it falls due.

Enqueue markers (`codreamer:queued:webhook:<run>:<id>:<attempts>`) keep the
dispatchers from flooding the queue: one task per attempt, until the marker
expires (its ETA plus a grace period), after which a dispatcher enqueues again.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from functools import lru_cache
from typing import Any

from codreamer.config import Settings
from codreamer.runs.celery.keys import DELIVER_TASK, queued_key
from codreamer.runs.celery.leases import MIN_CLAIM_TTL_S, RedisEventClaims, redis_client
from codreamer.store.paths import RunPaths, check_run_id
from codreamer.webhooks.attempt import make_client, post_once
from codreamer.webhooks.envelope import make_signer
from codreamer.webhooks.outbox import Outbox, OutboxEvent, read_outbox
from codreamer.webhooks.sender import announce, emit_when_not_live, send_if_due

log = logging.getLogger(__name__)

# Room for an ETA task to start late (a busy pool, a worker restarting) before a
# dispatcher enqueues the same attempt again (harmless, but a wasted task).
EARLY_SLACK_S = 0.05
# Retries of one task chain (one per attempt, plus a few early starts); the schedule
# allows 100 attempts at most. Past it the task fails and the dispatchers take over.
MAX_DELIVERY_RETRIES = 1000


def eta_limit_s(settings: Settings) -> float:
    """The longest delay held as a task countdown (see the module docstring)."""
    return settings.celery_visibility_timeout_s / 2


def grace_s(settings: Settings) -> float:
    return max(MIN_CLAIM_TTL_S, 4 * settings.webhook_timeout_s)


class WebhookTasks:
    """Enqueues delivery tasks, at most one per attempt of an event at a time (a
    Redis marker, plus a memo in this process that spares Redis most calls). Its
    `submit` is the dispatchers' SubmitFn."""

    def __init__(self, app: Any, settings: Settings, client: Any) -> None:
        self.app = app
        self.settings = settings
        self.client = client
        self._memo: dict[str, float] = {}  # marker key -> monotonic time it expires
        self._lock = threading.Lock()

    def submit(self, paths: RunPaths, ev: OutboxEvent) -> None:
        """An event is due now: enqueue its delivery unless a task already carries it."""
        try:
            self.enqueue(paths.run_id, ev.webhook_id, ev.attempts)
        except Exception:  # broker away: the dispatcher tries again on its next pass
            log.warning("could not enqueue webhook %s", ev.webhook_id, exc_info=True)

    def mark(self, run_id: str, webhook_id: str, attempts: int, countdown: float) -> bool:
        """Take the marker for this attempt; False if a task already carries it."""
        key = queued_key(run_id, webhook_id, attempts)
        ttl = countdown + grace_s(self.settings)
        now = time.monotonic()
        with self._lock:
            if self._memo.get(key, 0.0) > now:
                return False
            if len(self._memo) > 10_000:
                self._memo = {k: t for k, t in self._memo.items() if t > now}
        if not self.client.set(key, _me(), nx=True, px=int(ttl * 1000)):
            with self._lock:
                self._memo[key] = now + 1.0  # look again soon: it may expire
            return False
        with self._lock:
            self._memo[key] = now + ttl
        return True

    def enqueue(self, run_id: str, webhook_id: str, attempts: int) -> bool:
        if not self.mark(run_id, webhook_id, attempts, 0.0):
            return False
        try:
            self.app.send_task(
                DELIVER_TASK,
                args=[run_id, webhook_id, attempts],
                queue=self.settings.celery_webhook_queue,
            )
        except Exception:
            self.client.delete(queued_key(run_id, webhook_id, attempts))
            with self._lock:
                self._memo.pop(queued_key(run_id, webhook_id, attempts), None)
            raise
        return True


def _me() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@lru_cache(maxsize=4)
def _http_for(timeout_s: float, secret: str | None, pid: int) -> tuple[Any, Any]:
    """One HTTP client (thread-safe) and signer per worker process."""
    return make_client(timeout_s), make_signer(secret)


def deliver_task(
    settings: Settings, task: Any, run_id: str, webhook_id: str, attempts: int | None = None
) -> str:
    """The body of `codreamer.deliver_webhook` (bound, registered with the worker's
    settings by app.py): one attempt at the event, if it is still due, then the next
    attempt scheduled if it fits a countdown."""
    url = settings.frontend_url
    if not url:
        return "no-url"  # stays pending for a worker that has a receiver configured
    paths = RunPaths.for_run(settings.runs_dir, check_run_id(run_id))
    client = redis_client(settings.cluster)
    http, signer = _http_for(settings.webhook_timeout_s, settings.webhook_secret, os.getpid())
    outbox = Outbox(paths, settings.webhooks.schedule)
    sender = f"task {task.request.id} on {_me()}"

    def post(ev: OutboxEvent) -> Any:
        return post_once(http, url, ev.webhook_id, ev.stage, ev.body, signer)

    claims = RedisEventClaims(client, settings.webhook_timeout_s)
    step = send_if_due(claims, outbox, webhook_id, post, sender=sender)
    if step.kind == "sent":
        announce(emit_when_not_live(paths), step)
    if step.kind == "not_due":
        ev = step.event
        assert ev is not None and ev.next_at is not None
        delay = max(0.0, ev.next_at - time.time()) + EARLY_SLACK_S
        # Started a moment early (timer precision, clock skew between machines): go
        # again when due, if soon. A task for an attempt already made is stale: the
        # sender that made it scheduled the next one.
        if ev.attempts == attempts and delay <= grace_s(settings):
            raise task.retry(countdown=delay)
        return "not_due"
    if step.kind != "sent":
        return step.kind  # settled, missing, or another sender holds it (and records)
    ev = read_outbox(paths.webhooks).get(webhook_id)
    if ev is None or ev.status != "pending" or ev.next_at is None:
        return str(step.status)
    delay = max(0.0, ev.next_at - time.time()) + EARLY_SLACK_S
    if delay > eta_limit_s(settings):
        return "pending: a dispatcher enqueues it when due"
    tasks = WebhookTasks(task.app, settings, client)
    if not tasks.mark(run_id, webhook_id, ev.attempts, delay):
        return "pending: already scheduled"
    raise task.retry(args=[run_id, webhook_id, ev.attempts], countdown=delay)
