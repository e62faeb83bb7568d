"""Learning commands (codreamer/loop, codreamer/train): `learn-loop`, `oracle`, `evaluate`."""

from __future__ import annotations

from typing import Annotated

import typer

from codreamer.commands.common import GraphOpt, ScenarioOpt, fail
from codreamer.runs.spec import DEFAULT_DEPTH, cli_depth_option, cli_help


def register(app: typer.Typer) -> None:
    app.command("learn-loop")(learn_loop_cmd)
    app.command("oracle")(oracle_cmd)
    app.command("evaluate")(evaluate_cmd)


def learn_loop_cmd(
    iterations: Annotated[
        int | None, typer.Argument(help=cli_help("iterations", "NUM_ITERS"))
    ] = None,
    depth: Annotated[int | None, typer.Argument(help=cli_help("depth", "DEPTH"))] = None,
    graph: GraphOpt = None,
    scenario: Annotated[
        list[str] | None,
        typer.Option(
            "--scenario",
            help="Training scenario: an id from data/scenarios.json or a JSON file (a list "
            "file gives all its scenarios; entries marked held_out are evaluated, not "
            "trained on). Repeatable. Default: the sample prospects (default graph) or a "
            "neutral reader (your own graph).",
        ),
    ] = None,
    group_size: Annotated[int | None, typer.Option(help=cli_help("group_size"))] = None,
    seed: Annotated[int, typer.Option(help=cli_help("seed"))] = 0,
    patience: Annotated[int | None, typer.Option(min=0, max=50, help=cli_help("patience"))] = None,
    policy: Annotated[str | None, typer.Option(help="embedded | openai | art.")] = None,
    judge: Annotated[str | None, typer.Option(help="rubric | llm | ruler.")] = None,
    trainer: Annotated[
        str | None,
        typer.Option(
            help="grpo | prompt | art | none (default by policy: embedded grpo, "
            "openai prompt, art art)."
        ),
    ] = None,
    resume: Annotated[
        str | None, typer.Option("--resume", help="Resume this run id from its last iteration.")
    ] = None,
    sender_name: Annotated[
        str | None, typer.Option(help="Who signs the emails (env CODREAMER_SENDER_NAME).")
    ] = None,
    sender_company: Annotated[
        str | None, typer.Option(help="The sender's company (env CODREAMER_SENDER_COMPANY).")
    ] = None,
    sender_title: Annotated[
        str | None, typer.Option(help="The sender's title (env CODREAMER_SENDER_TITLE).")
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help="Continue this agent from its latest version and record the next one "
            "(a new name starts a new agent). See `codreamer agents list`.",
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="End with one JSON summary.")] = False,
    with_oracle: Annotated[
        bool,
        typer.Option(
            "--oracle",
            help="Also put the oracle's reward for the first prospect in the summary "
            "(an exhaustive search, capped; otherwise null: see `codreamer oracle`).",
        ),
    ] = False,
) -> None:
    """Run one learn-loop here, without a server (DESIGN §2)."""
    from codreamer.commands.runner import LoopRequest, run_from_cli

    request = LoopRequest(
        iterations=iterations,
        depth=depth,
        graph=graph,
        scenario=scenario,
        group_size=group_size,
        patience=patience,
        seed=seed,
        policy=policy,
        judge=judge,
        trainer=trainer,
        resume=resume,
        sender_name=sender_name,
        sender_company=sender_company,
        sender_title=sender_title,
        agent=agent,
    )
    raise typer.Exit(run_from_cli(request, json_out=json_out, with_oracle=with_oracle))


def oracle_cmd(
    graph: GraphOpt = None,
    scenario: ScenarioOpt = None,
    depth: Annotated[int, cli_depth_option()] = DEFAULT_DEPTH,
    max_emails: Annotated[int, typer.Option(min=1, help="Cap on emails judged.")] = 200_000,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The best judged reward reachable by the embedded policy, by exhaustive search."""
    import json as _json

    from codreamer.config import get_settings
    from codreamer.errors import CoDreamerError
    from codreamer.graph.schema import check_seed_nodes
    from codreamer.loaders import load_graph, resolve_scenario
    from codreamer.train.oracle import oracle

    settings = get_settings()
    try:
        store = load_graph(graph or settings.default_graph_path, settings.max_graph_nodes)
        sc = resolve_scenario(scenario, settings)
        check_seed_nodes(store.nodes, sc)
        best = oracle(store, sc, depth, max_emails=max_emails)
    except CoDreamerError as exc:
        raise fail(str(exc)) from None
    style = best.style
    out = {
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
    import json as _json

    from codreamer.commands.runner import evaluate_run
    from codreamer.errors import CoDreamerError

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
