"""Commands on graphs and emails: `graph validate`, `judge`, `demo`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.commands.common import GraphOpt, ScenarioOpt, fail, scenario_for
from codreamer.commands.spec_options import DEFAULT_DEPTH, depth_option
from codreamer.config import get_settings
from codreamer.errors import CoDreamerError, DataFileError, GraphValidationError
from codreamer.graph.schema import check_seed_nodes
from codreamer.graph.scores import NodeScores
from codreamer.loaders import load_graph, resolve_scenario
from codreamer.models import FinalEmail, Sender


def register(app: typer.Typer, graph_app: typer.Typer) -> None:
    graph_app.command("validate")(graph_validate_cmd)
    app.command("judge")(judge_cmd)
    app.command("demo")(demo_cmd)


def graph_validate_cmd(
    graph: Annotated[
        Path,
        typer.Argument(
            help='Graph JSON: a node list, {"nodes": [...]}, or a POST /learn-loop body '
            '({"graph": [...], ...}).',
            show_default=False,
        ),
    ],
) -> None:
    """Validate a graph with the API's own checks: each problem on its own line (the
    first 100, then a count; exit 1), or a one-line summary."""

    try:
        store = load_graph(graph, get_settings().max_graph_nodes)
    except DataFileError as exc:
        typer.echo(str(exc))
        raise typer.Exit(1) from None
    except GraphValidationError as exc:
        for problem in exc.problems:
            typer.echo(str(problem))
        if exc.total > len(exc.problems):
            typer.echo(f"... and {exc.total - len(exc.problems):,} more problems")
        raise typer.Exit(1) from None
    max_hops = 6
    n_paths = len(store.paths_to_features(max_hops=max_hops))
    typer.echo(
        f"{graph}: ok: {len(store)} nodes, {store.edge_count} edges, {n_paths} paths from "
        f"'Customer Job' to a Product Feature (simple paths of at most {max_hops} hops)"
    )


def _load_graph_and_scenario(graph: Path | None, scenario: str | None) -> tuple[Any, Any]:
    """The store and scenario a command works on; a clear one-line error otherwise."""

    settings = get_settings()
    try:
        store = load_graph(graph or settings.default_graph_path, settings.max_graph_nodes)
        sc = scenario_for(scenario, graph, settings)
        check_seed_nodes(store.nodes, sc)
        return store, sc
    except CoDreamerError as exc:
        raise fail(str(exc)) from None


def _read_emails(path: Path) -> list[tuple[int, Any]]:
    """(line number, FinalEmail) for every non-blank line; the first bad line fails the
    whole file, named by its number, before anything is judged."""

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise fail(f"{str(path)!r} is not UTF-8 text") from None
    emails: list[tuple[int, Any]] = []
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise fail(f"{path}: line {no}: not valid JSON ({exc.msg})") from None
        if not isinstance(raw, dict):
            raise fail(f"{path}: line {no}: expected an object with subject, body, citations")
        try:
            emails.append((no, FinalEmail.model_validate(raw)))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(x) for x in err["loc"]) or "email"
            raise fail(f"{path}: line {no}: {field}: {err['msg']}") from None
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
    # Deferred: Rich only when a person reads the output.
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


def judge_cmd(
    emails: Annotated[
        Path,
        typer.Argument(help='JSONL file, one {"subject", "body", "citations"} per line.'),
    ],
    graph: GraphOpt = None,
    scenario: Annotated[
        list[str] | None,
        typer.Option(
            "--scenario",
            help="A scenario id or JSON file; give it several times to judge every email "
            "for each prospect (default: the first of data/scenarios.json).",
        ),
    ] = None,
    no_graph: Annotated[
        bool,
        typer.Option(
            "--no-graph", help="Judge without a graph: argument and grounding are not scored."
        ),
    ] = False,
    json_out: Annotated[
        bool,
        typer.Option("--json", help="One JSON object per input line and scenario, in order."),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Show each criterion's contribution to the total (its push on the fitted "
            "model's logit against a neutral email).",
        ),
    ] = False,
    sender_name: Annotated[
        str | None,
        typer.Option("--sender-name", help="Who signs the emails (env CODREAMER_SENDER_NAME)."),
    ] = None,
    sender_company: Annotated[
        str | None, typer.Option("--sender-company", help="The sender's company.")
    ] = None,
) -> None:
    """Judge emails with the rubric judge: each criterion's score and
    reason, and the total fitted on sales readers' grades."""

    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    from codreamer.judge.rubric import RubricJudge

    if no_graph and graph is not None:
        raise fail("--no-graph and --graph cannot be used together")
    settings = get_settings()
    try:
        store = (
            None
            if no_graph
            else load_graph(graph or settings.default_graph_path, settings.max_graph_nodes)
        )
        choices: list[str | None] = list(scenario) if scenario else [None]
        scenarios = [resolve_scenario(choice, settings) for choice in choices]
        if store is not None:
            for sc in scenarios:
                check_seed_nodes(store.nodes, sc)
    except CoDreamerError as exc:
        raise fail(str(exc)) from None

    sender = settings.sender
    if sender_name or sender_company:
        sender = Sender(
            name=sender_name or sender.name,
            company=sender_company if sender_company is not None else sender.company,
            title=sender.title,
        )
    items = _read_emails(emails)
    judge = RubricJudge(store)
    results = [
        (no, email, sc, judge.judge(email, sc, sender)) for no, email in items for sc in scenarios
    ]
    if json_out:
        for no, email, sc, j in results:
            row = {"line": no, "scenario": sc.id, **_judgement_json(j)}
            if explain:
                row["contributions"] = judge.explain(email, sc, sender)
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    if explain:
        _print_explained(judge, results, sender)
        return
    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    from rich.console import Console
    from rich.table import Table

    from codreamer.judge.rubric import CRITERIA

    names = ", ".join(repr(sc.id) for sc in scenarios)
    table = Table(title=f"{len(items)} emails judged on scenario {names}")
    table.add_column("line", justify="right")
    if len(scenarios) > 1:
        table.add_column("scenario")
    table.add_column("subject", max_width=30)
    table.add_column("total", justify="right", style="bold")
    table.add_column("criteria below full marks (score: reason)")
    for no, email, sc, j in results:
        weak = [
            f"{n} {c.score:.2f}: {c.reason}" for n in CRITERIA if (c := j.criteria[n]).score < 1.0
        ]
        cells = [str(no)] + ([sc.id] if len(scenarios) > 1 else [])
        table.add_row(*cells, email.subject, f"{j.total:.3f}", "\n".join(weak) or "none")
    Console().print(table)


def _print_explained(judge: Any, results: list[Any], sender: Any) -> None:
    """One table per email: each criterion's score, its weight and what it adds to or
    takes from the total, largest push first."""
    # Deferred: Rich only when a person reads the output.
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for no, email, sc, j in results:
        contrib = judge.explain(email, sc, sender)
        table = Table(title=f"line {no}, {sc.id}: {email.subject[:50]!r}  total {j.total:.3f}")
        for col, just in (("criterion", "left"), ("score", "right"), ("weight", "right"),
                          ("push", "right"), ("reason", "left")):  # fmt: skip
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        for name in sorted(j.criteria, key=lambda n: -abs(contrib.get(n, 0.0))):
            c = j.criteria[name]
            push = contrib.get(name)
            table.add_row(name, f"{c.score:.2f}", f"{c.weight:.2f}",
                          "gate" if push is None else f"{push:+.2f}", c.reason)  # fmt: skip
        console.print(table)


def demo_cmd(
    graph: GraphOpt = None,
    scenario: ScenarioOpt = None,
    depth: Annotated[int, depth_option()] = DEFAULT_DEPTH,
    seed: Annotated[int, typer.Option(min=0, help="Random seed of the rollout.")] = 0,
) -> None:
    """One rollout of the (untrained) embedded agent: the email and its judgement."""
    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    import numpy as np

    from codreamer.agent.policies.embedded import EmbeddedPolicy
    from codreamer.agent.rollout import RolloutEnv, rollout
    from codreamer.judge.rubric import RubricJudge

    store, sc = _load_graph_and_scenario(graph, scenario)
    sender = get_settings().sender
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), sc, depth, sender)
    meta = TrajectoryMeta(trajectory_id="demo", scenario_id=sc.id, iteration=0, seed=seed)
    traj = rollout(EmbeddedPolicy(store), env, np.random.default_rng(seed), meta)
    show_email_and_judgement(traj.final_email, RubricJudge(store).judge(traj.final_email, sc))
