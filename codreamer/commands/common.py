"""What the command modules share: the --graph and --scenario options, and `fail`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

GraphOpt = Annotated[
    Path | None, typer.Option("--graph", help="Graph JSON (default: data/graph.json).")
]
ScenarioOpt = Annotated[
    str | None,
    typer.Option("--scenario", help="A scenario id from data/scenarios.json, or a JSON file."),
]


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one clear line to stderr and return the Exit to raise."""
    typer.secho(message, err=True, fg=typer.colors.RED)
    return typer.Exit(code)
