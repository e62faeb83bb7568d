"""`codreamer webhooks redeliver RUN_ID`: send again, now and in order, every event of a
run that no receiver has acknowledged (given up, skipped, or still pending), with
its original webhook-id. One attempt each; the outcome is recorded in the outbox."""

from __future__ import annotations

import time

from codreamer.config import Settings
from codreamer.errors import CoDreamerError
from codreamer.store.events import EventLog
from codreamer.store.paths import RunPaths
from codreamer.webhooks.attempt import AttemptOutcome, make_client, post_once
from codreamer.webhooks.claims import EventClaims, FileClaims, Release
from codreamer.webhooks.envelope import DeliveryResult, make_signer
from codreamer.webhooks.outbox import Outbox, OutboxEvent, read_outbox

CLAIM_WAIT_S = 30.0


def redeliver(
    paths: RunPaths,
    settings: Settings,
    *,
    url: str | None = None,
    claims: EventClaims | None = None,
) -> list[DeliveryResult]:
    target = url or settings.frontend_url
    if not target:
        return []
    claims = claims or FileClaims()
    outbox = Outbox(paths, settings.webhooks.schedule)
    signer = make_signer(settings.webhook_secret)
    events = EventLog(paths.events)
    results: list[DeliveryResult] = []
    with make_client(settings.webhook_timeout_s) as client:
        for wid, first in read_outbox(paths.webhooks).items():
            if first.status == "delivered":
                continue
            release = _claim_waiting(claims, paths, wid)
            try:
                # Read again under the claim: a dispatcher may have delivered it meanwhile.
                ev = read_outbox(paths.webhooks)[wid]
                if ev.status == "delivered":
                    continue
                outcome = post_once(client, target, ev.webhook_id, ev.stage, ev.body, signer)
                # A still-pending event keeps its schedule if this attempt fails too.
                final = ev.status != "pending"
                delivered = outbox.record_attempt(ev, outcome, final=final) == "delivered"
            finally:
                release()
            results.append(_result(ev, outcome, delivered))
            events.emit(
                "webhook_delivered" if delivered else "webhook_failed",
                webhook_id=ev.webhook_id,
                stage=ev.stage,
                iteration=ev.iteration,
                attempts=ev.attempts + 1,
                status_code=outcome.status_code,
                redelivery=True,
            )
    return results


def _claim_waiting(claims: EventClaims, paths: RunPaths, webhook_id: str) -> Release:
    """A dispatcher may be attempting this event right now: wait for its outcome."""
    deadline = time.monotonic() + CLAIM_WAIT_S
    while (release := claims.claim(paths, webhook_id)) is None:
        if time.monotonic() > deadline:
            raise CoDreamerError(f"run {paths.run_id}: its webhooks are being delivered; retry")
        time.sleep(0.1)
    return release


def _result(ev: OutboxEvent, outcome: AttemptOutcome, delivered: bool) -> DeliveryResult:
    return DeliveryResult(
        ev.webhook_id,
        delivered,
        ev.attempts + 1,
        outcome.status_code,
        None if delivered else outcome.reason,
    )
