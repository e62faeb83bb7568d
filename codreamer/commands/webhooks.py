"""Webhook commands (codreamer/webhooks): `webhooks dispatch`, `webhooks redeliver`."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from codreamer.commands.common import fail
from codreamer.config import get_settings
from codreamer.errors import CoDreamerError, ConfigError
from codreamer.logs import configure_logging
from codreamer.store.paths import RunPaths


def register(webhooks_app: typer.Typer) -> None:
    webhooks_app.command("dispatch")(webhooks_dispatch_cmd)
    webhooks_app.command("redeliver")(webhooks_redeliver_cmd)


def _claims(settings: Any) -> Any:
    """The claims of the deployment's executor: a sender here claims each event where
    the API's and the workers' senders do (Redis in celery mode, else an flock)."""
    # Deferred: the CLI's start-up (`--help`) loads no executor.
    from codreamer.runs.executors import make_executor

    try:
        return make_executor(settings).claims()
    except ConfigError as exc:
        raise fail(str(exc), 2) from None


def _check_url(target: str | None) -> str:
    if not target:
        raise fail("no receiver: set FRONTEND_URL or pass --url", 2)
    if not target.startswith(("http://", "https://")):
        raise fail(f"receiver URL must start with http:// or https://, got {target!r}", 2)
    return target


def webhooks_dispatch_cmd(
    url: Annotated[str | None, typer.Option(help="Receiver URL (default: FRONTEND_URL).")] = None,
    until_idle: Annotated[
        bool,
        typer.Option(
            "--until-idle",
            help="Exit once no event is pending any more (default: keep going, like a server).",
        ),
    ] = False,
) -> None:
    """Deliver the pending webhook events of every run in the results store, each on its
    retry schedule (CODREAMER_WEBHOOK_SCHEDULE), for users who run no API. A running
    API does the same by itself; both may run at once (a claim per event keeps each
    event to one sender)."""

    # Deferred: the run and webhook machinery only for a command that uses it.
    from codreamer.webhooks.dispatcher import Dispatcher

    settings = get_settings()
    configure_logging(settings.logging)
    target = _check_url(url or settings.frontend_url)
    dispatcher = Dispatcher.for_store(
        settings.runs_dir, settings, url=target, claims=_claims(settings)
    ).start()
    typer.echo(f"delivering pending webhooks of {settings.runs_dir} to {target}", err=True)
    try:
        while True:
            time.sleep(0.5)
            if until_idle and dispatcher.pending() == 0 and dispatcher.close(0) == 0:
                break
    except KeyboardInterrupt:
        pass
    left = dispatcher.close(0)
    typer.echo(
        f"delivered {dispatcher.delivered}, gave up on {dispatcher.gave_up}, {left} pending",
        err=True,
    )


def webhooks_redeliver_cmd(
    run_id: Annotated[str, typer.Argument(help="The run whose undelivered webhooks to send.")],
    url: Annotated[str | None, typer.Option(help="Receiver URL (default: FRONTEND_URL).")] = None,
) -> None:
    """Send again, now, in order and with their original webhook-id, the events of a run
    that no receiver has acknowledged (given up, skipped, or still pending)."""
    # Deferred: the run and webhook machinery only for a command that uses it.
    from codreamer.webhooks.redeliver import redeliver

    settings = get_settings()
    try:
        paths = RunPaths.for_run(settings.runs_dir, run_id)
    except CoDreamerError as exc:
        raise fail(str(exc), 2) from None
    if not paths.dir.is_dir():
        raise fail(f"run {run_id!r} not found in {settings.runs_dir}", 2)
    target = _check_url(url or settings.frontend_url)
    if not paths.webhooks.exists():
        raise fail(f"run {run_id!r} has no webhook outbox (webhooks.jsonl): nothing was queued", 2)
    try:
        results = redeliver(paths, settings, url=target, claims=_claims(settings))
    except CoDreamerError as exc:
        raise fail(str(exc), 1) from None
    if not results:
        typer.echo("nothing to redeliver: every event was delivered")
        return
    for r in results:
        outcome = "delivered" if r.delivered else f"failed ({r.reason})"
        typer.echo(f"{r.webhook_id}  {outcome}  after {r.attempts} attempt(s)")
    if not all(r.delivered for r in results):
        raise typer.Exit(1)
