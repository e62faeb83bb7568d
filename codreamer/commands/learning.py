"""Learning commands (codreamer/loop, codreamer/train): `learn-loop`, `oracle`, `evaluate`."""

from __future__ import annotations

import inspect
import json as _json
from collections.abc import Callable
from typing import Annotated, Any, get_type_hints

import typer

from codreamer.commands.common import GraphOpt, ScenarioOpt, fail, scenario_for
from codreamer.commands.spec_options import (
    DEFAULT_DEPTH,
    depth_option,
    settings_given,
    spec_parameters,
)
from codreamer.config import get_settings
from codreamer.errors import CoDreamerError
from codreamer.graph.schema import check_seed_nodes
from codreamer.loaders import load_graph


def register(app: typer.Typer) -> None:
    _with_spec_options(learn_loop_cmd)
    app.command("learn-loop")(learn_loop_cmd)
    app.command("oracle")(oracle_cmd)
    app.command("evaluate")(evaluate_cmd)


def learn_loop_cmd(
    graph: GraphOpt = None,
    scenario: Annotated[
        list[str] | None,
        typer.Option(
            "--scenario",
            metavar="ID|FILE",
            help="Training scenario: an id from data/scenarios.json or a JSON file (a list "
            "file gives all its scenarios; entries marked held_out are evaluated, not "
            "trained on). Repeatable. Default: the sample prospects (default graph) or a "
            "neutral reader (your own graph).",
        ),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume", metavar="RUN_ID", help="Resume this run id from its last iteration."
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="End with one JSON summary.")] = False,
    with_oracle: Annotated[
        bool,
        typer.Option(
            "--oracle",
            help="Also put the oracle's reward for the first prospect in the summary "
            "(an exhaustive search, capped; otherwise null: see the oracle command).",
        ),
    ] = False,
    **settings: Any,
) -> None:
    """Run one learn-loop here, without a server: train, then print the best email.

    Every run setting is an option (the same names as the API's fields);
    ITERATIONS and DEPTH may also be given as positionals: `learn-loop 3 5`.
    """
    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    from codreamer.commands.runner import LoopRequest, run_from_cli

    try:
        given = settings_given(settings)
    except typer.BadParameter as exc:
        raise fail(str(exc), 2) from None
    request = LoopRequest(
        settings=given,
        graph=graph,
        scenario=scenario,
        resume=resume,
        sender={k: settings.get(f"sender_{k}") for k in ("name", "company", "title")},
    )
    raise typer.Exit(run_from_cli(request, json_out=json_out, with_oracle=with_oracle))


def _with_spec_options(command: Callable[..., None]) -> None:
    # Typer reads a command's parameters from its signature: the run settings'
    # options are generated from RunSpec and put in place of `**settings`.
    sig = inspect.signature(command)
    own = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    params = spec_parameters()
    positional = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    keyword = [p for p in params if p.kind is p.KEYWORD_ONLY]
    hints = get_type_hints(command, include_extras=True)
    own = [p.replace(annotation=hints[p.name], kind=p.KEYWORD_ONLY) for p in own]
    command.__signature__ = sig.replace(parameters=positional + keyword + own)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in positional + keyword + own}


def oracle_cmd(
    graph: GraphOpt = None,
    scenario: ScenarioOpt = None,
    depth: Annotated[int, depth_option()] = DEFAULT_DEPTH,
    max_emails: Annotated[int, typer.Option(min=1, help="Cap on emails judged.")] = 200_000,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The best judged reward reachable by the embedded policy, by exhaustive search."""

    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    from codreamer.train.oracle import oracle

    settings = get_settings()
    try:
        store = load_graph(graph or settings.default_graph_path, settings.max_graph_nodes)
        sc = scenario_for(scenario, graph, settings)
        check_seed_nodes(store.nodes, sc)
        best = oracle(store, sc, depth, max_emails=max_emails)
    except CoDreamerError as exc:
        raise fail(str(exc)) from None
    style = best.style
    out = {
        "scenario": sc.id,  # whom the email is to: on a graph of one's own, a neutral reader
        "oracle_reward": best.reward,
        "path": best.path,
        "style": style.as_dict(),
        "walks": best.walks,
        "emails_judged": best.emails_judged,
        "email": best.email.model_dump(),
        "criteria": {k: c.score for k, c in best.judgement.criteria.items()},
    }
    if json_out:
        typer.echo(_json.dumps(out, ensure_ascii=False))
        return
    typer.echo(
        f"oracle reward {best.reward:.4f} over {best.walks} walks x styles "
        f"({best.emails_judged} emails)"
    )
    typer.echo("path: " + " -> ".join(best.path))
    typer.echo(f"subject: {best.email.subject}")


def evaluate_cmd(
    run: Annotated[str, typer.Option("--run", help="The run whose final policy to evaluate.")],
    scenario: Annotated[
        list[str] | None,
        typer.Option(
            "--scenario",
            help="Scenario ids or files (default: the held-out ones; without any, the "
            "training prospects).",
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Step 5: the run's policy on held-out scenarios (mean reward, pass rate, criteria,
    each prospect's email)."""

    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    from codreamer.commands.runner import evaluate_run

    try:
        report = evaluate_run(run, scenario or [])
    except CoDreamerError as exc:
        raise fail(str(exc)) from None
    if json_out:
        typer.echo(_json.dumps(report.model_dump(), ensure_ascii=False))
        return
    typer.echo(
        f"{report.scenarios} {report.split.replace('_', '-')} scenarios  mean reward "
        f"{report.mean_reward:.3f}  pass rate {report.pass_rate:.0%} (>= {report.pass_threshold})"
    )
    for name, v in report.criteria_means.items():
        typer.echo(f"  {name:<18} {v:.3f}")
    for r in report.results:
        typer.echo(f"\n{r.scenario_id}  reward {r.reward:.3f}  cites {', '.join(r.citations)}")
        typer.echo(f"Subject: {r.subject}\n{r.body}")
