"""The one place that runs a run (DESIGN §6): the learn-loop with its webhook
dispatcher beside it. The CLI (`learn-loop`, `--resume`), the local executor's run
processes and the celery workers all call `execute_run`, so a run behaves the same
wherever it runs: it resumes from its files, re-announces nothing already in its
outbox, and leaves every undelivered event pending for the next dispatcher.

It knows no executor: whoever calls it passes the webhook claims of its deployment
(the executor's `claims()`), and a celery worker its delivery-task submitter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codreamer.config import Settings
from codreamer.store.events import EventLog
from codreamer.store.gate import EventGate
from codreamer.store.paths import RunPaths
from codreamer.webhooks.claims import EventClaims
from codreamer.webhooks.dispatcher import Dispatcher, SubmitFn


def execute_run(
    paths: RunPaths,
    settings: Settings,
    *,
    should_stop: Callable[[], bool] | None = None,
    event_log: EventLog | None = None,
    drain_s: float = 0.0,
    claims: EventClaims | None = None,
    submit_webhook: SubmitFn | None = None,
) -> Any:
    """Execute (or resume) the run in `paths` here, delivering its webhooks meanwhile.

    `drain_s`: how long to go on delivering, after the run, events due by then (the
    CLI waits; a server's run process hands them to the store-wide dispatcher).
    `claims`: who may claim a webhook event (None: an flock per event, local mode).
    `submit_webhook` (celery workers): hand each due event to a delivery task instead
    of sending it from this process."""
    # Deferred: the loop (NumPy, the agent, the judge) loads only in a process that
    # executes a run, not in the API that imports this module to start one.
    from codreamer.loop.learn_loop import run_learn_loop

    # The dispatcher's delivered/failed events go through the loop's own EventLog, so
    # `seq` stays equal to the line number with two writers.
    events = event_log or EventLog(paths.events)
    if settings.test_event_gate is not None and events.gate is None:
        events.gate = EventGate(settings.test_event_gate, paths.run_id)
    dispatcher = Dispatcher.for_run(
        paths, settings, emit=events.emit_event, claims=claims, submit=submit_webhook
    )
    dispatcher.start()  # events a killed process left pending go out now
    try:
        return run_learn_loop(
            paths,
            on_webhook=dispatcher.enqueue,
            should_stop=should_stop or paths.cancel_request.exists,  # a stat per step
            settings=settings,
            event_log=events,
        )
    finally:
        dispatcher.close(drain_s)
