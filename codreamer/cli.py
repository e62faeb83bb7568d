"""The `codreamer` command line. Heavy modules are imported inside commands so that
`codreamer --help` answers at once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(
    name="codreamer",
    help="CoDreamer: an agent walks a knowledge graph, writes cited sales emails, and learns.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: Typer's Rich help formatter alone costs ~0.3 s of imports.
    rich_markup_mode=None,
)
graph_app = typer.Typer(
    help="Knowledge-graph tools.", no_args_is_help=True, rich_markup_mode=None
)
webhooks_app = typer.Typer(
    help="Webhook delivery tools.", no_args_is_help=True, rich_markup_mode=None
)
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


# --- graph, judge, demo ------------------------------------------------------


@graph_app.command("validate")
def graph_validate_cmd(
    graph: Annotated[Path, typer.Argument(help="Graph JSON file.", show_default=False)],
) -> None:
    """Validate a graph: every problem on its own line (exit 1), or a one-line summary."""
    from codreamer.config import get_settings
    from codreamer.errors import DataFileError, GraphValidationError
    from codreamer.loaders import load_graph

    try:
        store = load_graph(graph, get_settings().max_graph_nodes)
    except DataFileError as exc:
        typer.echo(str(exc))
        raise typer.Exit(1) from None
    except GraphValidationError as exc:
        for problem in exc.problems:
            typer.echo(str(problem))
        raise typer.Exit(1) from None
    max_hops = 6
    n_paths = len(store.paths_to_features(max_hops=max_hops))
    typer.echo(
        f"{graph}: ok: {len(store)} nodes, {store.edge_count} edges, {n_paths} paths from "
        f"'Customer Job' to a Product Feature (simple paths of at most {max_hops} hops)"
    )


def _load_graph_and_scenario(graph: Path | None, scenario: str | None) -> tuple[Any, Any]:
    """The store and scenario a command works on; a clear one-line error otherwise."""
    from codreamer.config import get_settings
    from codreamer.errors import CoDreamerError
    from codreamer.loaders import load_graph, resolve_scenario

    settings = get_settings()
    try:
        store = load_graph(graph or settings.default_graph_path, settings.max_graph_nodes)
        return store, resolve_scenario(scenario, settings)
    except CoDreamerError as exc:
        raise _fail(str(exc)) from None


def _read_emails(path: Path) -> list[tuple[int, Any]]:
    """(line number, FinalEmail) for every non-blank line; the first bad line fails the
    whole file, named by its number, before anything is judged."""
    import json as _json

    from pydantic import ValidationError

    from codreamer.models import FinalEmail

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _fail(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise _fail(f"{str(path)!r} is not UTF-8 text") from None
    emails: list[tuple[int, Any]] = []
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = _json.loads(line)
        except _json.JSONDecodeError as exc:
            raise _fail(f"{path}: line {no}: not valid JSON ({exc.msg})") from None
        if not isinstance(raw, dict):
            raise _fail(f"{path}: line {no}: expected an object with subject, body, citations")
        try:
            emails.append((no, FinalEmail.model_validate(raw)))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(x) for x in err["loc"]) or "email"
            raise _fail(f"{path}: line {no}: {field}: {err['msg']}") from None
    return emails


def _judgement_json(judgement: Any) -> dict[str, Any]:
    return {
        "total": judgement.total,
        "criteria": {
            name: {"score": c.score, "weight": c.weight, "reason": c.reason}
            for name, c in judgement.criteria.items()
        },
    }


def show_email_and_judgement(email: Any, judgement: Any) -> None:
    """The email, then a criteria table, then the total (`demo` and friends)."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = Console()
    text = Text()
    text.append(email.subject, style="bold")
    text.append("\n\n" + email.body + "\n\n")
    text.append("citations: " + " -> ".join(email.citations), style="dim")
    console.print(Panel(text, title="email", expand=False))
    table = Table(title="judgement")
    table.add_column("criterion")
    table.add_column("score", justify="right")
    table.add_column("weight", justify="right")
    table.add_column("reason")
    for name, c in judgement.criteria.items():
        weight = f"{c.weight:.2f}" if c.weight else "gate"
        table.add_row(name, f"{c.score:.2f}", weight, c.reason)
    console.print(table)
    console.print(f"[bold]total {judgement.total:.3f}[/bold]")


@app.command("judge")
def judge_cmd(
    emails: Annotated[
        Path,
        typer.Argument(help='JSONL file, one {"subject", "body", "citations"} per line.'),
    ],
    graph: GraphOpt = None,
    scenario: ScenarioOpt = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="One JSON object per input line, in order.")
    ] = False,
) -> None:
    """Judge emails with the rubric judge (DESIGN §4)."""
    import json as _json

    from codreamer.judge.rubric import RubricJudge

    store, sc = _load_graph_and_scenario(graph, scenario)
    items = _read_emails(emails)
    judge = RubricJudge(store)
    results = [(no, email, judge.judge(email, sc)) for no, email in items]
    if json_out:
        for no, _, j in results:
            typer.echo(_json.dumps({"line": no, **_judgement_json(j)}, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.table import Table

    from codreamer.judge.rubric import CRITERIA

    table = Table(title=f"{emails} judged on scenario {sc.id!r}")
    table.add_column("line", justify="right")
    table.add_column("subject", max_width=30)
    table.add_column("total", justify="right", style="bold")
    table.add_column("criteria below full marks (score: reason)")
    for no, email, j in results:
        weak = [
            f"{n} {c.score:.2f}: {c.reason}" for n in CRITERIA if (c := j.criteria[n]).score < 1.0
        ]
        table.add_row(str(no), email.subject, f"{j.total:.3f}", "\n".join(weak) or "none")
    Console().print(table)


@app.command("demo")
def demo_cmd(
    graph: GraphOpt = None,
    scenario: ScenarioOpt = None,
    depth: Annotated[int, typer.Option(help="Most hops the rollout may walk.")] = 5,
    seed: Annotated[int, typer.Option(help="Random seed of the rollout.")] = 0,
) -> None:
    """One rollout of the (untrained) embedded agent: the email and its judgement."""
    import numpy as np

    from codreamer.agent.policies.embedded import EmbeddedPolicy
    from codreamer.agent.rollout import RolloutEnv, rollout
    from codreamer.agent.tools import AgentTools
    from codreamer.agent.trajectory import TrajectoryMeta
    from codreamer.graph.scores import NodeScores
    from codreamer.judge.rubric import RubricJudge

    store, sc = _load_graph_and_scenario(graph, scenario)
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), sc, depth)
    meta = TrajectoryMeta(trajectory_id="demo", scenario_id=sc.id, iteration=0, seed=seed)
    traj = rollout(EmbeddedPolicy(store), env, np.random.default_rng(seed), meta)
    show_email_and_judgement(traj.final_email, RubricJudge(store).judge(traj.final_email, sc))


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


@app.command("web")
def web_cmd(
    host: Annotated[str | None, typer.Option(help="Interface (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 3000).")] = None,
) -> None:
    """Serve the dashboard alone (DESIGN §8); it talks to the API at CODREAMER_API_URL."""
    from web.app import main as web_main

    web_main(host=host, port=port)


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
