"""`codreamer agents list|show` and `codreamer write`: agents kept in the results store,
and writing with one for a list of leads, no training."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from codreamer.commands.common import GraphOpt, cli_command, fail
from codreamer.config import get_settings
from codreamer.errors import CoDreamerError
from codreamer.leads import decode_text, parse_csv, parse_json, to_csv
from codreamer.loaders import load_graph
from codreamer.runs.agent_views import list_agents, show_agent
from codreamer.runs.feedback_import import import_outcomes

MAX_PROBLEMS_SHOWN = 100  # bad rows listed one per line; the rest counted


def register(app: typer.Typer, agents_app: typer.Typer) -> None:
    agents_app.command("list")(agents_list_cmd)
    agents_app.command("show")(agents_show_cmd)
    agents_app.command("import-outcomes")(import_outcomes_cmd)
    app.command("write")(write_cmd)


def agents_list_cmd(
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The agents in the results store, most recently updated first."""

    settings = get_settings()
    agents = list_agents(settings.results_dir, settings.runs_dir)
    if json_out:
        print(json.dumps({"agents": agents, "count": len(agents)}, ensure_ascii=False))
        return
    if not agents:
        print(f"no agents yet: `{cli_command()} learn-loop --agent NAME` starts one")
        return
    for a in agents:
        busy = f"  (continued by {a['busy_with']})" if a["busy_with"] else ""
        reward = "-" if a["final_reward"] is None else f"{a['final_reward']:.3f}"
        version = "-" if a["latest_version"] is None else f"v{a['latest_version']}"
        print(
            f"{a['name']:<24} {version:<5} {a['policy'] or '-':<9} "
            f"reward {reward}  runs {a['runs']}  {a['updated_at'] or ''}{busy}"
        )


def agents_show_cmd(
    name: Annotated[str, typer.Argument(help="The agent's name.")],
) -> None:
    """One agent: its latest version's config and lineage, and every version (JSON)."""

    settings = get_settings()
    try:
        shown = show_agent(settings.results_dir, settings.runs_dir, name)
    except CoDreamerError as exc:
        raise fail(str(exc), 2) from None
    print(json.dumps(shown, ensure_ascii=False, indent=2))


def write_cmd(
    agent: Annotated[str, typer.Option("--agent", help="The agent that writes.")],
    leads: Annotated[
        Path,
        typer.Option(
            "--leads",
            help="Leads: a CSV export (First Name, Last Name, Email, Title, Company, "
            "Industry, Notes, whatever their case and spacing; other columns are passed "
            "through) or a JSON list of prospects (or of scenarios, as data/scenarios.json).",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("-o", "--out", help="Where to write: .csv or .json (default: stdout, JSON)."),
    ] = None,
    graph: GraphOpt = None,
    goal: Annotated[
        str | None, typer.Option(help="What every email asks for (default: the agent's).")
    ] = None,
) -> None:
    """Write one email per lead with an agent's latest version (no training): subject,
    body, citations, reward, the judge's reasons and email_key, beside the lead's columns.
    Rows that are not leads are reported by row number; the others are written."""
    # Deferred: the loop's machinery (NumPy) only for a command that runs it, not for --help.
    from codreamer.loop.write import AgentWriter, csv_rows

    settings = get_settings()
    try:
        data = leads.read_bytes()
    except OSError as exc:
        raise fail(f"cannot read {leads}: {exc.strerror or exc}", 2) from None
    try:
        if leads.suffix.lower() == ".json":
            parsed, problems = parse_json(json.loads(data.decode("utf-8-sig")))
        else:
            parsed, problems = parse_csv(decode_text(data))
    except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError are
        raise fail(f"{leads}: {str(exc)[:300]}", 2) from None
    try:
        store = load_graph(graph, settings.max_graph_nodes) if graph else None
        writer = AgentWriter(settings.results_dir, agent, settings, graph=store, goal=goal)
    except CoDreamerError as exc:
        raise fail(str(exc), 2) from None
    started = time.perf_counter()
    results = writer.write(parsed)
    seconds = time.perf_counter() - started
    for p in problems[:MAX_PROBLEMS_SHOWN]:
        typer.secho(f"{leads}: row {p.row}: {p.error}", err=True, fg=typer.colors.YELLOW)
    if len(problems) > MAX_PROBLEMS_SHOWN:
        more = len(problems) - MAX_PROBLEMS_SHOWN
        typer.secho(f"{leads}: {more} more rows skipped", err=True, fg=typer.colors.YELLOW)
    if out is not None and out.suffix.lower() == ".csv":
        out.write_text(to_csv(csv_rows(results)), encoding="utf-8")
    else:
        body = json.dumps(
            {"agent": agent, "agent_version": writer.version, "emails": results,
             "problems": [p.as_dict() for p in problems]},
            ensure_ascii=False, indent=1,
        )  # fmt: skip
        if out is None:
            print(body)
        else:
            out.write_text(body + "\n", encoding="utf-8")
    print(
        f"{len(results)} emails written with {agent} v{writer.version} in {seconds:.2f} s"
        + (f"; {len(problems)} rows skipped" if problems else ""),
        file=sys.stderr,
    )
    if problems and not results:
        raise typer.Exit(1)  # nothing could be written: say so to scripts too


def import_outcomes_cmd(
    name: Annotated[str, typer.Argument(help="The agent whose emails they are.")],
    csv_file: Annotated[Path, typer.Argument(help="Outcomes CSV (email_key or email, outcome).")],
) -> None:
    """Import outcomes of sent emails (opened, replied, call booked...), keyed by
    email_key or by the lead's email address; the agent's next run mixes them in."""

    settings = get_settings()
    try:
        report = import_outcomes(settings.results_dir, name, decode_text(csv_file.read_bytes()))
    except (CoDreamerError, ValueError, OSError) as exc:
        raise fail(str(exc), 2) from None
    print(json.dumps(report, ensure_ascii=False))
