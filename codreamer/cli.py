"""The `codreamer` command line. Heavy modules are imported inside commands so that
`codreamer --help` answers at once. The commands live in `codreamer.commands`, by
topic; this module builds the app from them and is the entry point."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from pydantic import ValidationError

from codreamer import __version__
from codreamer.commands import (
    agents,
    cluster,
    graph_judge,
    learning,
    llm,
    prompts,
    retention,
    servers,
    webhooks,
)
from codreamer.commands.plain_help import PlainGroup

app = typer.Typer(
    name="codreamer",
    cls=PlainGroup,
    help="CoDreamer: an agent walks a knowledge graph, writes cited sales emails, and learns.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: Typer's Rich help formatter alone costs ~0.3 s of imports.
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"codreamer {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """CoDreamer: an agent walks a knowledge graph, writes cited sales emails, and learns."""


graph_app = typer.Typer(help="Knowledge-graph tools.", no_args_is_help=True, rich_markup_mode=None)
webhooks_app = typer.Typer(
    help="Webhook delivery tools.", no_args_is_help=True, rich_markup_mode=None
)
prompts_app = typer.Typer(
    help="An LLM policy's prompt versions: show them, apply one to later runs.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(graph_app, name="graph")
app.add_typer(webhooks_app, name="webhooks")
app.add_typer(prompts_app, name="prompts")
llm_app = typer.Typer(
    help="A real local LLM (the local-llm extra).", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(llm_app, name="llm")
runs_app = typer.Typer(
    help="The results store's runs: prune old ones.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(runs_app, name="runs")
agents_app = typer.Typer(
    help="Agents: named, versioned policies kept across runs.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(agents_app, name="agents")

# The commands, by topic; `--help` lists them in this order.
graph_judge.register(app, graph_app)
learning.register(app)
servers.register(app)
cluster.register(app)
webhooks.register(webhooks_app)
prompts.register(prompts_app)
llm.register(llm_app)
retention.register(runs_app)
agents.register(app, agents_app)


def _run(args: list[str] | None = None) -> None:
    """Run the app; a bad environment variable is one clear line, not a traceback."""
    try:
        app(args)
    except Exception as exc:
        if not isinstance(exc, ValidationError) or exc.title not in ("Settings", "WebSettings"):
            raise
        for e in exc.errors():
            name = ".".join(str(x) for x in e["loc"]).upper()
            typer.secho(f"invalid environment: {name}: {e['msg']}", err=True, fg="red")
        raise SystemExit(2) from None


def main() -> None:
    _run()


def api_main() -> None:
    _run(["api", *sys.argv[1:]])


def learn_loop_main() -> None:
    _run(["learn-loop", *sys.argv[1:]])


def demo_main() -> None:
    _run(["demo", *sys.argv[1:]])


if __name__ == "__main__":
    main()
