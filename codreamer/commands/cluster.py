"""Cluster commands (codreamer/runs, celery mode): `worker`."""

from __future__ import annotations

from typing import Annotated

import typer

from codreamer.commands.common import fail
from codreamer.config import get_settings


def register(app: typer.Typer) -> None:
    app.command("worker")(worker_cmd)


def worker_cmd(
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, max=256, help="Runs at once on this machine (default: its CPUs)."),
    ] = None,
    queues: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated queues to consume (default: CODREAMER_CELERY_QUEUE, "
            "`codreamer`, and CODREAMER_CELERY_WEBHOOK_QUEUE, `codreamer-webhooks`, whose "
            "delivery tasks run on a thread pool of their own; GPU machines add "
            "CODREAMER_CELERY_GPU_QUEUE, `codreamer-gpu`)."
        ),
    ] = None,
    loglevel: Annotated[str, typer.Option(help="Celery log level.")] = "warning",
    companion: Annotated[
        bool,
        typer.Option(hidden=True, help="Started by a worker for its webhook queue."),
    ] = False,
) -> None:
    """Execute runs from the broker (celery mode). Needs CODREAMER_BROKER_URL
    and the results store shared with the API replicas (CODREAMER_RESULTS_DIR)."""

    settings = get_settings()
    if not settings.broker_url:
        raise fail("set CODREAMER_BROKER_URL (e.g. redis://127.0.0.1:6379/0) to run a worker", 2)
    try:
        # Deferred: the optional `celery` extra, only for `codreamer worker`.
        from codreamer.runs.celery.worker import run_worker
    except ImportError as exc:
        raise fail(f"the celery extra is missing ({exc}): uv sync --extra celery", 2) from None
    run_worker(
        settings,
        concurrency=concurrency,
        queues=queues,
        loglevel=loglevel,
        services=not companion,
    )
