"""The CLI's way into the loop: resolve inputs, create or resume a run, run it here
with `execute_run` (the same one the API's executors use), show progress, print a
summary."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from codreamer.agent.tools import AgentTools
from codreamer.commands.common import cli_command, own_graph
from codreamer.config import Settings, get_settings
from codreamer.errors import CoDreamerError, OracleTooLargeError
from codreamer.graph.schema import parse_graph
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.judge.base import make_judge
from codreamer.loaders import load_graph, resolve_scenarios, sample_scenarios
from codreamer.logs import configure_logging
from codreamer.loop.config import LoopConfig
from codreamer.loop.context import build_policy
from codreamer.loop.evaluate import EvalReport, evaluate
from codreamer.loop.learn_loop import last_complete_iteration
from codreamer.loop.local import existing_run, new_local_run
from codreamer.loop.scenarios import describe
from codreamer.preflight import check_ready
from codreamer.runs.agent_start import (
    agent_start,
    check_graph,
    knobs,
    with_agent_settings,
)
from codreamer.runs.execute import execute_run
from codreamer.runs.executors import make_executor
from codreamer.runs.local.process import run_lock
from codreamer.runs.spec import build_loop_config
from codreamer.store.events import EventLog
from codreamer.store.files import read_json
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths
from codreamer.webhooks.outbox import read_outbox

SUMMARY_ORACLE_MAX_EMAILS = 3_000


@dataclass
class LoopRequest:
    """What the command line asked for: the run settings by RunSpec name (None: not
    given), the sender's fields, and where the graph and scenarios come from."""

    settings: dict[str, Any] = field(default_factory=dict)
    graph: Path | None = None
    scenario: list[str] | None = None
    resume: str | None = None
    sender: dict[str, str | None] = field(default_factory=dict)

    def given(self) -> list[str]:
        """The names of what was given, for `--resume` (which takes none of them)."""
        named = {**self.settings, "graph": self.graph, "scenario": self.scenario}
        named.update({f"sender_{k}": v for k, v in self.sender.items()})
        return [name for name, value in named.items() if value is not None]

    def record(self) -> dict[str, Any]:
        """What meta.json keeps of the request."""
        return {
            **self.settings,
            "graph": str(self.graph) if self.graph is not None else None,
            "scenario": self.scenario,
            "resume": self.resume,
            **{f"sender_{k}": v for k, v in self.sender.items()},
        }


def config_from_cli(req: LoopRequest, settings: Settings) -> tuple[Any, LoopConfig]:
    """The run's config from the command line: RunSpec resolves the settings (the same
    resolution the API uses) over the environment's."""

    agent = req.settings.get("agent")
    start = agent_start(settings.results_dir, agent) if agent else None
    agent_graph = start.graph() if start is not None and req.graph is None else None
    if agent_graph is not None:
        store, where = agent_graph, "the agent's graph"
    else:
        store = load_graph(req.graph or settings.default_graph_path, settings.max_graph_nodes)
        where = f"graph {req.graph}" if req.graph else "the default graph"
    if start is not None:
        check_graph(start, store, where)
    own = agent_graph is not None or own_graph(req.graph, settings)
    given = {**req.settings, "sender": _sender(req, settings, given_only=start is not None)}
    scenarios = resolve_scenarios(req.scenario or [], settings)
    if start is not None:
        given = with_agent_settings(given, start)
        if agent_graph is not None and not scenarios:
            scenarios = start.scenarios()
    config = build_loop_config(
        given,
        scenarios,
        sample_scenarios(settings),
        own_graph=own,
        node_ids=store.nodes,
        settings=settings,
        knobs=knobs(start),
    )
    return store, config


def _sender(req: LoopRequest, settings: Settings, given_only: bool = False) -> Any:
    """The settings' sender, with what the command line gave on top. `given_only`
    (a continued agent): None unless the command line gave one, so the agent's own
    sender is kept."""
    if given_only and all(v is None for v in req.sender.values()):
        return None
    sender = settings.sender.model_dump()
    for key, value in req.sender.items():
        if value is not None:
            sender[key] = value or None
    return sender


def run_from_cli(req: LoopRequest, *, json_out: bool, with_oracle: bool = False) -> int:
    settings = get_settings()
    log_settings = settings.logging
    if "log_level" not in settings.model_fields_set:
        # The progress display tells the run's steps; lines only for what goes wrong.
        log_settings = log_settings.model_copy(update={"level": "WARNING"})
    configure_logging(log_settings)
    try:
        if req.resume:
            given = req.given()
            if given:
                _error_line(
                    f"--resume continues a run with the settings it was started with; "
                    f"drop {', '.join(given)}"
                )
                return 2
            paths = existing_run(settings, req.resume)
            store = None
        else:
            store, config = config_from_cli(req, settings)
            _check_policy_ready(config, settings)
            paths = new_local_run(
                settings,
                store,
                config,
                run_id=settings.run_id,
                request=req.record(),
            )
    except ValidationError as exc:
        e = exc.errors()[0]
        # A check of the whole spec (e.g. trainer vs policy) has no field of its own.
        field = ".".join(str(x) for x in e["loc"]) or "settings"
        _error_line(f"invalid {field}: {str(e['msg']).removeprefix('Value error, ')}")
        return 2
    except CoDreamerError as exc:
        _error_line(str(exc))
        return 2
    except OSError as exc:  # e.g. a results directory that cannot be written
        _error_line(f"cannot create the run: {exc.strerror or exc}: {exc.filename or ''}")
        return 2

    config = LoopConfig.from_meta(read_meta(paths))
    events = EventLog(paths.events)
    try:
        # A run here sends its webhooks as every sender of the deployment does: with
        # Redis claims in celery mode, an flock per event locally.
        claims = make_executor(settings).claims()
    except CoDreamerError as exc:
        _error_line(str(exc))
        return 2
    drain = settings.webhook_drain_timeout_s
    execute = partial(execute_run, paths, settings, event_log=events, drain_s=drain, claims=claims)
    show_bars = not json_out and sys.stderr.isatty()
    # Even without FRONTEND_URL every payload is recorded (as skipped) in
    # webhooks.jsonl, so `codreamer webhooks redeliver --url` can send it later.
    with run_lock(paths) as held:
        if held is None:
            _error_line(f"run {paths.run_id} is being executed by another process")
            return 2
        try:
            if show_bars:
                # Deferred: Rich only when a person watches.
                from rich.console import Console

                from codreamer.commands.progress import LoopProgress

                start = max(0, last_complete_iteration(paths, config.iterations))
                console = Console(stderr=True)
                trainer = config.trainer
                with LoopProgress(console, config.iterations, start, trainer) as bars:
                    events.listener = bars
                    result = execute()
            else:
                result = execute()
        except KeyboardInterrupt:
            # Everything on disk is consistent at every instant: say how to go on.
            update_meta(paths, status="interrupted")
            events.emit("run_interrupted", reason="keyboard interrupt")
            _error_line(
                f"interrupted: resume with `{cli_command()} learn-loop --resume {paths.run_id}`"
            )
            return 130
    _report_pending_webhooks(paths, settings)

    summary = summarize(paths, config, store, with_oracle=with_oracle)
    if json_out:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        # Deferred: Rich only when a person reads the output.
        from rich.console import Console

        from codreamer.commands.progress import print_summary

        print_summary(Console(), summary)
    if result.status != "succeeded":
        _error_line(f"run {result.status}: {result.error or ''}")
        return 1
    return 0


def _error_line(message: str) -> None:
    """One line on stderr, never wrapped (scripts and tests read it whole)."""
    line = " ".join(message.split())
    if sys.stderr.isatty():
        line = f"\x1b[31m{line}\x1b[0m"
    print(line, file=sys.stderr)


def _check_policy_ready(config: LoopConfig, settings: Settings) -> None:
    """Fail fast, before a run exists, when the chosen policy/judge cannot work here."""

    check_ready(config, settings)


def _report_pending_webhooks(paths: RunPaths, settings: Settings) -> None:
    """Say what is left for later, so a CLI-only user knows what to run."""

    pending = sum(1 for e in read_outbox(paths.webhooks).values() if e.status == "pending")
    if pending and settings.frontend_url:
        _error_line(
            f"{pending} webhook event(s) still pending on their retry schedule: "
            f"`{cli_command()} webhooks dispatch` (or a running `{cli_command()} api`) "
            "delivers them"
        )


def summarize(
    paths: RunPaths, config: LoopConfig, store: Any = None, *, with_oracle: bool = False
) -> dict[str, Any]:
    """The `--json` summary: run id, path, per-iteration metrics, final email and reward,
    and, when asked (`--oracle`), the oracle's reward if the graph is within its cap.
    Not by default: the search judges thousands of emails, more than a short run."""

    meta = read_meta(paths)
    final = read_json(paths.final_email) if paths.final_email.exists() else None
    oracle_reward = None
    if with_oracle and config.policy == "embedded" and config.judge == "rubric":
        # Deferred: the oracle's search (and its templates) only with --oracle.
        from codreamer.train.oracle import oracle

        store = store or GraphStore(parse_graph(read_json(paths.graph)))
        try:
            # Bounded so the summary stays instant: past the cap it is null and
            # `codreamer oracle` computes it (the search is exhaustive).
            oracle_reward = oracle(
                store, config.scenario, config.depth, max_emails=SUMMARY_ORACLE_MAX_EMAILS
            ).reward
        except OracleTooLargeError:
            oracle_reward = None
    return {
        "run_id": paths.run_id,
        "status": meta.status,
        "results_path": str(paths.dir),
        "iterations": meta.iteration_metrics,
        "final_email": final["email"] if final else None,
        "final_reward": final["reward"] if final else None,
        "final_iteration": final["iteration"] if final else None,
        # Whether the greedy policy wrote the final (best judged) email, and the
        # trained policy's own greedy email beside it.
        "final_from_greedy": final.get("greedy") if final else None,
        "greedy_email": final["greedy_email"]["email"]
        if final and "greedy_email" in final
        else None,
        "greedy_reward": final["greedy_email"]["reward"]
        if final and "greedy_email" in final
        else None,
        "iterations_run": (final.get("metrics") or {}).get("iterations_run") if final else None,
        "stopped_early": (final.get("metrics") or {}).get("stopped_early") if final else None,
        "prospects": describe(config.scenarios) + describe(config.eval_scenarios),
        # Whom the final and greedy emails are written to: the first training prospect.
        "final_prospect": describe([config.scenario])[0],
        "oracle_reward": oracle_reward,
        "agent": config.agent,
        "agent_started_from": config.agent_version,
        "agent_version": getattr(meta, "agent_version", None),
        "error": meta.error,
    }


def evaluate_run(run_id: str, scenario_args: list[str]) -> EvalReport:
    """Evaluate a run's last checkpoint on scenarios (default: its held-out ones; a run
    with none, on its training prospects)."""

    settings = get_settings()
    paths = RunPaths.existing(settings.runs_dir, run_id)
    config = LoopConfig.from_meta(read_meta(paths))
    store = GraphStore(parse_graph(read_json(paths.graph)))
    k = last_complete_iteration(paths, config.iterations)
    if k < 0:
        raise CoDreamerError(f"run {run_id} has no completed iteration to evaluate")
    policy = build_policy(config, store, settings)
    policy.load_state_dict(read_json(paths.policy(k)))
    scores = NodeScores(store.nodes, read_json(paths.node_scores(k)))
    split = "held_out"
    if scenario_args:
        split, scenarios = "given", resolve_scenarios(scenario_args, settings)
    elif config.eval_scenarios:
        scenarios = config.eval_scenarios
    else:
        split, scenarios = "training", config.scenarios or [config.scenario]
    judge = make_judge(config.judge, store, settings)
    return evaluate(
        policy,
        store,
        AgentTools(store, scores),
        scenarios,
        judge,
        config.depth,
        config.sender,
        split,
    )
