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
    typer.Option("--scenario", help="A scenario id from data/scenarios.json, or a JSON file."),
]


def _fail(message: str, code: int = 1) -> typer.Exit:
    """Print one clear line to stderr and return the Exit to raise."""
    typer.secho(message, err=True, fg=typer.colors.RED)
    return typer.Exit(code)


# --- commands are added below by topic ------------------------------------


# --- learning (codreamer/loop, codreamer/train) ------------------------------


@app.command("learn-loop")
def learn_loop_cmd(
    iterations: Annotated[
        int | None, typer.Argument(help="GRPO iterations (env NUM_ITERS; default 3).")
    ] = None,
    depth: Annotated[
        int | None, typer.Argument(help="Most hops a rollout may walk (env DEPTH; default 5).")
    ] = None,
    graph: GraphOpt = None,
    scenario: ScenarioOpt = None,
    group_size: Annotated[int | None, typer.Option(help="Rollouts per iteration.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed: same seed, same run.")] = 0,
    policy: Annotated[str | None, typer.Option(help="embedded | openai | art.")] = None,
    judge: Annotated[str | None, typer.Option(help="rubric | llm | ruler.")] = None,
    resume: Annotated[
        str | None, typer.Option("--resume", help="Resume this run id from its last iteration.")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="End with one JSON summary.")] = False,
) -> None:
    """Run one learn-loop here, without a server (DESIGN §2)."""
    from codreamer.loop.runner import LoopRequest, run_from_cli

    request = LoopRequest(
        iterations=iterations,
        depth=depth,
        graph=graph,
        scenario=scenario,
        group_size=group_size,
        seed=seed,
        policy=policy,
        judge=judge,
        resume=resume,
    )
    raise typer.Exit(run_from_cli(request, json_out=json_out))


@app.command("oracle")
def oracle_cmd(
    graph: GraphOpt = None,
    scenario: ScenarioOpt = None,
    depth: Annotated[int, typer.Option(help="Most hops a walk may take.")] = 5,
    max_emails: Annotated[int, typer.Option(help="Cap on emails judged.")] = 200_000,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The best judged reward reachable by the embedded policy, by exhaustive search."""
    import json as _json

    from codreamer.config import get_settings
    from codreamer.errors import CoDreamerError
    from codreamer.loaders import load_graph, resolve_scenario
    from codreamer.train.oracle import oracle

    settings = get_settings()
    try:
        store = load_graph(graph or settings.default_graph_path, settings.max_graph_nodes)
        sc = resolve_scenario(scenario, settings)
        best = oracle(store, sc, depth, max_emails=max_emails)
    except CoDreamerError as exc:
        raise _fail(str(exc)) from None
    style = best.style
    out = {
        "oracle_reward": best.reward,
        "path": best.path,
        "style": {"subject": style.subject, "opening": style.opening, "cta": style.cta},
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


@app.command("evaluate")
def evaluate_cmd(
    run: Annotated[str, typer.Option("--run", help="The run whose final policy to evaluate.")],
    scenario: Annotated[
        list[str] | None,
        typer.Option("--scenario", help="Scenario ids or files (default: held-out)."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Step 5: the run's policy on held-out scenarios (mean reward, pass rate, criteria)."""
    import json as _json

    from codreamer.errors import CoDreamerError
    from codreamer.loop.runner import evaluate_run

    try:
        report = evaluate_run(run, scenario or [])
    except CoDreamerError as exc:
        raise _fail(str(exc)) from None
    if json_out:
        typer.echo(_json.dumps(report.model_dump(), ensure_ascii=False))
        return
    typer.echo(
        f"{report.scenarios} scenarios  mean reward {report.mean_reward:.3f}  "
        f"pass rate {report.pass_rate:.0%} (>= {report.pass_threshold})"
    )
    for name, v in report.criteria_means.items():
        typer.echo(f"  {name:<18} {v:.3f}")



# --- API server and webhooks (codreamer/api) -------------------------------


@app.command("api")
def api_cmd(
    host: Annotated[
        str | None, typer.Option(help="Interface (env CODREAMER_API_HOST; default 127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port (env CODREAMER_API_PORT; default 8000).")
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Serve the backend API (DESIGN §6): start runs, follow them, cancel, resume."""
    from codreamer.api.server import serve_api

    serve_api(host=host, port=port, log_level=log_level)


@app.command("serve")
def serve_cmd(
    host: Annotated[str | None, typer.Option(help="API interface (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="API port (default 8000).")] = None,
    web_host: Annotated[
        str | None, typer.Option(help="Dashboard interface (default 127.0.0.1).")
    ] = None,
    web_port: Annotated[int | None, typer.Option(help="Dashboard port (default 3000).")] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Serve the API and the dashboard together, webhooks wired to the dashboard.

    FRONTEND_URL defaults to the dashboard's receiver (http://127.0.0.1:3000/api/final-email).
    """
    from codreamer.api.server import DashboardMissing, serve_both

    try:
        serve_both(
            host=host, port=port, web_host=web_host, web_port=web_port, log_level=log_level
        )
    except DashboardMissing as exc:
        raise _fail(str(exc)) from None


@webhooks_app.command("redeliver")
def webhooks_redeliver_cmd(
    run_id: Annotated[str, typer.Argument(help="The run whose undelivered webhooks to send.")],
    url: Annotated[
        str | None, typer.Option(help="Receiver URL (default: FRONTEND_URL).")
    ] = None,
) -> None:
    """Send again, in order and with their original webhook-id, the events of a run that
    no receiver has acknowledged (gave up, or left pending by a stopped process)."""
    from codreamer.api.webhooks import redeliver
    from codreamer.config import get_settings
    from codreamer.errors import CoDreamerError
    from codreamer.loop.artifacts import RunPaths

    settings = get_settings()
    try:
        paths = RunPaths.for_run(settings.runs_dir, run_id)
    except CoDreamerError as exc:
        raise _fail(str(exc), 2) from None
    if not paths.dir.is_dir():
        raise _fail(f"run {run_id!r} not found in {settings.runs_dir}", 2)
    if not (url or settings.frontend_url):
        raise _fail("no receiver: set FRONTEND_URL or pass --url", 2)
    results = redeliver(paths, settings, url=url)
    if not results:
        typer.echo("nothing to redeliver: every event was delivered")
        return
    for r in results:
        outcome = "delivered" if r.delivered else f"failed ({r.reason})"
        typer.echo(f"{r.webhook_id}  {outcome}  after {r.attempts} attempt(s)")
    if not all(r.delivered for r in results):
        raise typer.Exit(1)


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
