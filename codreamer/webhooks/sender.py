"""One attempt at one event by whichever sender holds it: a dispatcher's pool thread
(local mode) or a delivery task on a worker (celery mode, codreamer.runs.celery.webhook_tasks).

It goes through `attempt_claimed` (claims.py) like every other sender:

    claim the event  ->  read the outbox again  ->  still due?  ->  POST  ->  record  ->  release

and says what happened, so a task knows whether to schedule the next attempt: it
sent (and the event is now delivered, given up or pending again), another sender
holds the event, the event is settled, or it is not due yet.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from codreamer.store.events import EventLog
from codreamer.store.meta import read_meta
from codreamer.store.paths import RunPaths
from codreamer.store.status import LIVE_STATUSES
from codreamer.webhooks.attempt import AttemptOutcome
from codreamer.webhooks.claims import EventClaims, attempt_claimed
from codreamer.webhooks.outbox import Outbox, OutboxEvent, read_outbox

EmitFn = Callable[[dict[str, Any]], None]
StepKind = Literal["sent", "busy", "settled", "not_due", "missing"]


@dataclass(frozen=True)
class Step:
    kind: StepKind
    event: OutboxEvent | None = None  # as read under the claim (before this attempt)
    outcome: AttemptOutcome | None = None
    status: str | None = None  # the event's status after this attempt ("sent" only)


def send_if_due(
    claims: EventClaims,
    outbox: Outbox,
    webhook_id: str,
    post: Callable[[OutboxEvent], AttemptOutcome],
    *,
    sender: str | None = None,
) -> Step:
    """Attempt the event once if this sender can claim it and it is due; `sender` is
    written on the attempt row (who sent it: operators and tests read it)."""
    paths = outbox.paths
    seen: list[OutboxEvent] = []

    def eligible(ev: OutboxEvent) -> bool:
        seen.append(ev)
        return ev.due(time.time())

    def send(ev: OutboxEvent) -> tuple[AttemptOutcome, str]:
        outcome = post(ev)
        return outcome, outbox.record_attempt(ev, outcome, sender=sender)

    done = attempt_claimed(claims, paths, webhook_id, eligible, send)
    if done is not None:
        ev, (outcome, status) = done
        return Step("sent", ev, outcome, status)
    if seen:
        ev = seen[0]
        return Step("not_due" if ev.status == "pending" else "settled", ev)
    if webhook_id not in read_outbox(paths.webhooks):
        return Step("missing")
    return Step("busy")


def announce(emit: EmitFn | None, step: Step) -> None:
    """A `webhook_delivered` / `webhook_failed` progress event once an attempt settles
    its event (nothing while it stays pending)."""
    if emit is None or step.kind != "sent" or step.status == "pending":
        return
    ev, outcome = step.event, step.outcome
    assert ev is not None and outcome is not None
    event: dict[str, Any] = {
        "type": "webhook_delivered" if step.status == "delivered" else "webhook_failed",
        "webhook_id": ev.webhook_id,
        "stage": ev.stage,
        "iteration": ev.iteration,
        "attempts": ev.attempts + 1,
        "status_code": outcome.status_code,
    }
    if step.status != "delivered":
        event["reason"] = outcome.reason
    with contextlib.suppress(Exception):  # progress info; the outbox has the facts
        emit(event)


def emit_when_not_live(paths: RunPaths) -> EmitFn | None:
    """Progress events for a run no process executes any more. While a run is live its
    own process owns events.jsonl (its EventLog numbers the lines), so any other sender
    leaves the log alone; the outbox still records every attempt."""
    try:
        if read_meta(paths).status in LIVE_STATUSES:
            return None
    except (OSError, ValueError):
        return None
    return EventLog(paths.events).emit_event
