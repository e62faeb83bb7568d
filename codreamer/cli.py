"""The `codreamer` command line. Heavy modules are imported inside commands so that
`codreamer --help` answers at once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="codreamer",
    help="CoDreamer: an agent walks a knowledge graph, writes cited sales emails, and learns.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
graph_app = typer.Typer(help="Knowledge-graph tools.", no_args_is_help=True)
webhooks_app = typer.Typer(help="Webhook delivery tools.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")
app.add_typer(webhooks_app, name="webhooks")

GraphOpt = Annotated[
    Path | None, typer.Option("--graph", help="Graph JSON (default: data/graph.json).")
]
ScenarioOpt = Annotated[
    str | None,
    typer.Option("--scenario", help="A scenario id from data/scenarios.json, or a scenario JSON file."),
]


def _fail(message: str, code: int = 1) -> typer.Exit:
    """Print one clear line to stderr and return the Exit to raise."""
    typer.secho(message, err=True, fg=typer.colors.RED)
    return typer.Exit(code)


# --- commands are added below by topic ------------------------------------


def main() -> None:
    app()


def api_main() -> None:
    app(["api"])


def learn_loop_main() -> None:
    import sys

    app(["learn-loop", *sys.argv[1:]])


def demo_main() -> None:
    import sys

    app(["demo", *sys.argv[1:]])


if __name__ == "__main__":
    main()
