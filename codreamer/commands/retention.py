"""`codreamer runs prune`: remove ended runs older than a number of days."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from codreamer.commands.common import fail
from codreamer.config import get_settings
from codreamer.store.retention import prune


def register(runs_app: typer.Typer) -> None:
    runs_app.command("prune")(runs_prune_cmd)


def runs_prune_cmd(
    older_than: Annotated[
        float | None,
        typer.Option(
            "--older-than",
            min=0,
            help="Days since a run ended (default: CODREAMER_RETENTION_DAYS).",
        ),
    ] = None,
    keep_agents: Annotated[
        bool,
        typer.Option(
            "--keep-agents/--prune-agents",
            help="Agents' versions are kept unless --prune-agents (each keeps its newest).",
        ),
    ] = True,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List only; remove nothing.")] = False,
) -> None:
    """Remove runs that ended (succeeded, failed, cancelled, interrupted) longer ago than
    --older-than days; queued and running runs are never touched."""
    # Deferred: the run and webhook machinery only for a command that uses it.
    from codreamer.runs.local.process import is_run_alive

    settings = get_settings()
    days = older_than if older_than is not None else settings.retention_days
    if days is None:
        raise fail("say how old: --older-than DAYS, or set CODREAMER_RETENTION_DAYS", 2)
    report = prune(
        settings.results_dir, days, keep_agents=keep_agents, dry_run=dry_run,
        is_run_alive=is_run_alive,
    )  # fmt: skip
    typer.echo(json.dumps({"older_than_days": days, "dry_run": dry_run, **report.as_dict()}))
