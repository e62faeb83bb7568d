"""Prompt commands (codreamer/train/prompt*): `prompts show RUN_ID`, `prompts apply RUN_ID`."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from codreamer.commands.common import fail
from codreamer.config import get_settings
from codreamer.errors import CoDreamerError
from codreamer.store.paths import RunPaths


def register(prompts_app: typer.Typer) -> None:
    prompts_app.command("show")(show_cmd)
    prompts_app.command("apply")(apply_cmd)


RunArg = Annotated[str, typer.Argument(help="The run id, e.g. run-20260101-120000-a1b2c3.")]


def _paths(run_id: str):  # type: ignore[no-untyped-def]

    settings = get_settings()
    paths = RunPaths.existing(settings.runs_dir, run_id)
    return settings, paths


def show_cmd(
    run_id: RunArg,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Every prompt version of an LLM-policy run and the suggestions that made it."""

    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    from codreamer.train.prompt_store import prompt_versions

    try:
        _, paths = _paths(run_id)
        versions = prompt_versions(paths)
    except CoDreamerError as exc:
        raise fail(str(exc)) from None
    if not versions:
        raise fail(f"run {run_id} has no prompt versions (only LLM policies have a prompt)")
    if json_out:
        rows = [{"iteration": k, **p.model_dump(mode="json")} for k, p in versions]
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    for k, p in versions:
        typer.echo(
            f"iteration {k}: prompt v{p.version}, {len(p.exemplars)} exemplar(s)"
            + (
                f", started from overrides {', '.join(p.overrides_applied)}"
                if p.overrides_applied
                else ""
            )
        )
        for c in p.changes:
            typer.echo(f"  [{c.section}] {c.source} suggestion, was {c.original_hash}")
            typer.echo(f"    why:    {c.rationale}")
            typer.echo(f"    impact: {c.expected_impact}")
            typer.echo(f"    now:    {c.suggested}")
        for e in p.exemplars:
            typer.echo(
                f"  exemplar {e.trajectory_id} ({e.reward:.3f}) to {e.prospect}: {e.subject}"
            )


def apply_cmd(
    run_id: RunArg,
    iteration: Annotated[
        int | None,
        typer.Option(min=0, help="Take the prompt after this iteration (default: last)."),
    ] = None,
    section: Annotated[
        list[str] | None, typer.Option("--section", help="Only these sections (repeatable).")
    ] = None,
) -> None:
    """Save the sections a run's prompt trainer changed as overrides for later runs.

    A later run starts from an override only while that section of its own
    prompt still reads as it did in this run (same hash)."""
    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    from codreamer.train.prompt_store import overrides_from_run, save_overrides

    try:
        settings, paths = _paths(run_id)
        overrides = overrides_from_run(paths, iteration, section)
        if not overrides:
            raise CoDreamerError(f"run {run_id} changed no prompt section: nothing to apply")
        save_overrides(settings.prompt_overrides_path, overrides)
    except CoDreamerError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot save overrides: {exc.strerror or exc}: {exc.filename or ''}") from None
    for o in overrides:
        typer.echo(f"saved [{o.section}] (applies while it hashes to {o.original_hash}): {o.body}")
    typer.echo(f"-> {settings.prompt_overrides_path}")
