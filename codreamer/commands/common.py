"""What the command modules share: the --graph and --scenario options, `fail`, and
the command a hint should print."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from codreamer.loaders import resolve_scenario
from codreamer.loop.scenarios import NEUTRAL_READER

if TYPE_CHECKING:
    from codreamer.config import Settings
    from codreamer.models import Scenario

GraphOpt = Annotated[
    Path | None, typer.Option("--graph", help="Graph JSON (default: data/graph.json).")
]
ScenarioOpt = Annotated[
    str | None,
    typer.Option("--scenario", help="A scenario id from data/scenarios.json, or a JSON file."),
]


def cli_command() -> str:
    """How to run this CLI from where the user is, for hints: `codreamer` when it is on
    the user's PATH, else `uv run codreamer`. In a uv project the console script sits
    in .venv/bin, which is not on PATH unless the environment is activated; `uv run`
    puts it on its child's PATH only (and says so in UV_RUN_RECURSION_DEPTH), so a
    command started that way must be given again that way."""
    if os.environ.get("UV_RUN_RECURSION_DEPTH") or not shutil.which("codreamer"):
        return "uv run codreamer"
    return "codreamer"


def own_graph(graph: Path | None, settings: Settings) -> bool:
    """A graph of the user's own (not the default one): its runs write to a neutral
    reader unless told whom, never to a sample prospect written for another business."""
    return graph is not None and graph.resolve() != Path(settings.default_graph_path).resolve()


def scenario_for(arg: str | None, graph: Path | None, settings: Settings) -> Scenario:
    """`--scenario` resolved; none given on a graph of one's own: the neutral reader,
    as `learn-loop` does (codreamer/loop/scenarios.py)."""

    if arg is None and own_graph(graph, settings):
        return NEUTRAL_READER
    return resolve_scenario(arg, settings)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one clear line to stderr and return the Exit to raise."""
    typer.secho(message, err=True, fg=typer.colors.RED)
    return typer.Exit(code)
