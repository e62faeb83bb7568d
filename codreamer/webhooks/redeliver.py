"""`codreamer webhooks redeliver RUN_ID`: send again, now and in order, every event of a
run that no receiver has acknowledged (given up, skipped, or still pending), with
its original webhook-id. One attempt each; the outcome is recorded in the outbox."""

from __future__ import annotations

import time

from codreamer.config import Settings
from codreamer.errors import CoDreamerError
from codreamer.loop.artifacts import RunPaths
from codreamer.loop.events import EventLog
from codreamer.webhooks.attempt import make_client, post_once
from codreamer.webhooks.envelope import DeliveryResult, make_signer
from codreamer.webhooks.leases import FileLeases, OutboxLeases
from codreamer.webhooks.outbox import Outbox, read_outbox
from codreamer.webhooks.schedule import parse_schedule

LEASE_WAIT_S = 30.0


def redeliver(
    paths: RunPaths,
    settings: Settings,
    *,
    url: str | None = None,
    leases: OutboxLeases | None = None,
) -> list[DeliveryResult]:
    target = url or settings.frontend_url
    if not target:
        return []
    leases = leases or FileLeases()
    # Wait for a dispatcher that is attempting this run's events right now.
    deadline = time.monotonic() + LEASE_WAIT_S
    while not leases.acquire(paths):
        if time.monotonic() > deadline:
            raise CoDreamerError(f"run {paths.run_id}: its webhooks are being delivered; retry")
        time.sleep(0.1)
    try:
        outbox = Outbox(paths, parse_schedule(settings.webhook_schedule))
        signer = make_signer(settings.webhook_secret)
        events = EventLog(paths.events)
        results: list[DeliveryResult] = []
        with make_client(settings.webhook_timeout_s) as client:
            for ev in read_outbox(paths.webhooks).values():
                if ev.status == "delivered":
                    continue
                outcome = post_once(client, target, ev.webhook_id, ev.stage, ev.body, signer)
                # A still-pending event keeps its schedule if this attempt fails too.
                final = ev.status != "pending"
                delivered = outbox.record_attempt(ev, outcome, final=final) == "delivered"
                results.append(
                    DeliveryResult(
                        ev.webhook_id,
                        delivered,
                        ev.attempts + 1,
                        outcome.status_code,
                        None if delivered else outcome.reason,
                    )
                )
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
    finally:
        leases.release(paths)
