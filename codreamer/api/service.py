"""What the route handlers do, without HTTP: build and start runs, read run views.

Handlers stay thin; everything here raises the typed errors of
codreamer/errors.py and the API layer maps them to statuses.
"""

from __future__ import annotations

import difflib
import json
import threading
from pathlib import Path
from typing import Any

from codreamer.api.schemas import LearnLoopRequest
from codreamer.config import Settings
from codreamer.errors import AgentNotFoundError, RunNotFoundError, ScenarioError
from codreamer.graph.schema import parse_graph
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.judge.feedback import FeedbackPost
from codreamer.loaders import load_graph, load_scenarios
from codreamer.loop.config import LoopConfig
from codreamer.loop.run_files import create_run, read_status
from codreamer.loop.scenarios import describe
from codreamer.models import Scenario
from codreamer.preflight import check_ready
from codreamer.runs.agent_start import (
    AgentStart,
    agent_start,
    check_graph,
    knobs,
    with_agent_settings,
)
from codreamer.runs.executors import Executor
from codreamer.runs.spec import build_loop_config
from codreamer.store.agents import (
    AgentPaths,
    acquire,
    agent_names,
    logged_emails,
    release,
    take_for_resume,
)
from codreamer.store.feedback import feedback_file
from codreamer.store.files import read_json
from codreamer.store.meta import read_meta
from codreamer.store.paths import RunPaths, new_run_id
from codreamer.store.run_list import iter_runs
from codreamer.store.storage import check_room, check_writable, estimate_run_bytes, storage_error
from codreamer.webhooks.outbox import read_outbox, summarize


class Catalog:
    """The default graph and the scenarios, loaded once and reloaded when their file
    changes, so a request never parses data/ again."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, Any]] = {}

    def _cached(self, key: str, path: Path, load: Any) -> Any:
        mtime = path.stat().st_mtime if path.exists() else -1.0
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and hit[0] == mtime:
                return hit[1]
        value = load(path)
        with self._lock:
            self._cache[key] = (mtime, value)
        return value

    def default_graph(self) -> GraphStore:
        path = self.settings.default_graph_path
        return self._cached(  # type: ignore[no-any-return]
            "graph", path, lambda p: load_graph(p, self.settings.max_graph_nodes)
        )

    def scenarios(self) -> list[Scenario]:
        path = self.settings.scenarios_path
        return self._cached(  # type: ignore[no-any-return]
            "scenarios", path, lambda p: load_scenarios(p) if p.exists() else []
        )

    def scenario(self, choice: str | Scenario | None) -> Scenario:
        if isinstance(choice, Scenario):
            return choice
        scenarios = self.scenarios()
        if choice is None:
            if not scenarios:
                raise ScenarioError("scenario: none given and the server has no default scenario")
            return scenarios[0]
        for s in scenarios:
            if s.id == choice:
                return s
        ids = [s.id for s in scenarios]
        close = difflib.get_close_matches(choice, ids, n=1, cutoff=0.75)
        known = ", ".join(ids) or "none"
        hint = f"; did you mean {close[0]!r}? Known" if close else "; known"
        hint += f" ids: {known}"
        raise ScenarioError(f"scenario: unknown scenario id {choice!r}{hint}")


def run_feedback_path(settings: Settings, agent: str | None) -> str:
    """The feedback file a run mixes into its rewards: its agent's, or the one for
    runs without an agent; recorded absolute in meta.json, read when the run starts."""

    return str(feedback_file(settings.results_dir, agent).resolve())


def _check_backends(config: LoopConfig, settings: Settings) -> None:
    """Refuse, before anything is written, a policy or judge this server cannot run
    (the same one-line ConfigError the CLI gives; the registry says what each needs)."""

    check_ready(config, settings)


def config_from_request(
    req: LearnLoopRequest,
    settings: Settings,
    catalog: Catalog,
    store: GraphStore,
    start: AgentStart | None = None,
) -> LoopConfig:
    """The run's config from the request body: RunSpec resolves the settings (the
    same resolution the CLI uses) over the agent's, then the backends are checked."""

    choices = ([req.scenario] if req.scenario is not None else []) + list(req.scenarios or [])
    given = req.settings_given()
    scenarios = [catalog.scenario(c) for c in choices]
    own_graph = req.graph is not None
    if start is not None:
        given = with_agent_settings(given, start)
        if start.version is not None and req.graph is None:
            own_graph = True  # the agent's graph: never the samples of the default one
            scenarios = scenarios or start.scenarios()
    config = build_loop_config(
        given,
        scenarios,
        catalog.scenarios(),
        # A graph of the request's own never gets a sample prospect (DESIGN §2).
        own_graph=own_graph,
        node_ids=store.nodes,
        settings=settings,
        knobs=knobs(start),
    )
    _check_backends(config, settings)
    return config


def start_run(
    req: LearnLoopRequest, settings: Settings, catalog: Catalog, manager: Executor
) -> tuple[RunPaths, int, LoopConfig, int]:
    """Validate everything, then create and queue the run. Nothing touches the disk
    unless the request is valid, the store is usable, has room, and the queue has room.
    Returns the run's paths, queue position, config and estimated disk use."""
    agent = req.settings_given()["agent"]
    start = agent_start(settings.results_dir, agent) if agent else None
    agent_graph = start.graph() if start is not None else None
    if req.graph is not None:
        store = GraphStore(parse_graph(req.graph, max_nodes=settings.max_graph_nodes))
        where = "the request's graph"
    elif agent_graph is not None:
        store, where = agent_graph, "the agent's graph"
    else:
        store, where = catalog.default_graph(), "the server's default graph"
    if start is not None:
        check_graph(start, store, where)
    config = config_from_request(req, settings, catalog, store, start)
    check_writable(settings.results_dir, settings.runs_dir)
    graph_bytes = len(json.dumps(store.to_json()))
    estimate = estimate_run_bytes(
        config.iterations, config.group_size, len(config.scenarios), graph_bytes
    )
    check_room(
        settings.runs_dir,
        estimate,
        settings.max_run_mb * 1_000_000,
        settings.min_free_mb * 1_000_000,
    )
    paths = manager.new_paths(new_run_id("api"))
    feedback_path = run_feedback_path(settings, config.agent)
    request = req.model_dump(exclude={"graph"}, exclude_none=True, mode="json")
    # Never an absolute server path: meta.json's request is shown to API callers.
    request["graph"] = "request" if req.graph is not None else "default"

    def create() -> None:
        # The agent is taken before anything is written: a second run continuing it
        # is refused (409) with nothing half-started.
        agent = AgentPaths(settings.results_dir, config.agent) if config.agent else None
        if agent is not None:
            acquire(agent, paths.run_id, settings.runs_dir)
        try:
            create_run(paths, store, config, request=request, feedback_path=feedback_path)
        except OSError as exc:
            if agent is not None:
                release(agent, paths.run_id)
            raise storage_error(exc, settings.results_dir) from exc
        except BaseException:
            if agent is not None:
                release(agent, paths.run_id)
            raise

    position = manager.submit(paths.run_id, create)
    return paths, position, config, estimate


def resume_run(run_id: str, settings: Settings, manager: Executor) -> int:
    """Queue a run again; a run continuing an agent takes the agent back first (409 if
    another run holds it, or if the agent moved on since the run started)."""
    paths = manager.paths(run_id)
    config = read_meta(paths).config
    name = config.get("agent")
    if not isinstance(name, str):
        return manager.resume(run_id)
    agent = AgentPaths(settings.results_dir, name)
    take_for_resume(agent, run_id, settings.runs_dir, config.get("agent_version"))
    try:
        return manager.resume(run_id)
    except BaseException:
        release(agent, run_id)
        raise


# --- run views -------------------------------------------------------------------


def store_relative(paths: RunPaths, settings: Settings) -> str:
    """A run's directory relative to the results store (`runs/<run_id>`): the API never
    tells a caller where the server keeps its files."""
    try:
        return paths.dir.relative_to(settings.results_dir).as_posix()
    except ValueError:
        return f"runs/{paths.run_id}"


def webhook_summary(paths: RunPaths) -> dict[str, Any]:
    events = read_outbox(paths.webhooks)
    summary = summarize(events)
    # What became of the final event: the dashboard says "no webhook arrived" only
    # when this is `gave_up`. None: the run has produced no final event (yet).
    finals = [ev for ev in events.values() if ev.stage == "final"]
    summary["final"] = finals[-1].status if finals else None
    return summary


def run_status(paths: RunPaths, manager: Executor) -> dict[str, Any]:

    status = read_status(paths)
    status["queue_position"] = manager.queue_position(paths.run_id)
    status["webhooks"] = webhook_summary(paths)
    status["results_path"] = store_relative(paths, manager.settings)
    return status


def latest_scores(paths: RunPaths, node_ids: list[str]) -> tuple[int | None, dict[str, float]]:
    """The newest node-score checkpoint of the run (None: no iteration has written one)."""
    try:
        iterations = read_meta(paths).iterations
    except (OSError, ValueError, KeyError, TypeError):  # pydantic's errors are ValueErrors
        iterations = 0
    for k in range(iterations, -1, -1):
        p = paths.node_scores(k)
        if p.exists():
            return k, NodeScores(node_ids, read_json(p)).snapshot()
    return None, NodeScores(node_ids).snapshot()


def run_graph(paths: RunPaths) -> dict[str, Any]:
    nodes = read_json(paths.graph)
    ids = [n["id"] for n in nodes]
    iteration, scores = latest_scores(paths, ids)
    return {
        "run_id": paths.run_id,
        "iteration": iteration,
        "nodes": [
            {"id": n["id"], "content": n.get("content", ""), "score": scores[n["id"]]}
            for n in nodes
        ],
        "edges": [
            {"source": n["id"], "target": e["target"], "relationship": e.get("relationship", "")}
            for n in nodes
            for e in n.get("edges", [])
        ],
    }


def list_runs(
    settings: Settings, limit: int, status: str | None = None, offset: int = 0
) -> tuple[list[dict[str, Any]], int]:
    """A page of runs, newest first: who each wrote to, its agent, status, final reward
    and dates; and how many runs there are in all (with this status)."""

    out: list[dict[str, Any]] = []
    total = 0
    for name, meta in iter_runs(settings.runs_dir, status):
        total += 1
        if total <= offset or len(out) >= limit:
            continue
        config = meta.config
        paths = RunPaths(settings.runs_dir / name)
        final = None
        if paths.final_email.exists():
            try:
                final = read_json(paths.final_email).get("reward")
            except (OSError, ValueError):
                final = None
        try:
            prospects = describe(LoopConfig.from_meta(meta).scenarios)
        except ValueError:
            prospects = []
        out.append(
            {
                "run_id": name,
                "status": meta.status,
                "created_at": meta.created_at,
                "updated_at": meta.updated_at,
                "finished_at": meta.finished_at,
                "progress": meta.progress,
                "prospects": prospects,
                "agent": config.get("agent"),
                "agent_version": getattr(meta, "agent_version", None),
                "final_reward": final,
            }
        )
    return out, total


# --- feedback -------------------------------------------------------------------


def feedback_agent(event: FeedbackPost, settings: Settings) -> str | None:
    """The agent a feedback event belongs to: the one named (it must exist), else the
    agent of its run, else the agent whose email log holds its email_key; None for
    feedback on runs without an agent."""

    if event.agent is not None:
        if not AgentPaths(settings.results_dir, event.agent).versions():
            raise AgentNotFoundError(event.agent)
        return event.agent
    if event.run_id is not None:
        # for_run checks the id's shape (a 4xx naming it) before any path is built.
        paths = RunPaths.for_run(settings.runs_dir, event.run_id)
        if not paths.meta.exists():
            raise RunNotFoundError(event.run_id)
        agent = read_meta(paths).config.get("agent")
        return agent if isinstance(agent, str) else None
    if event.email_key is not None:
        for name in agent_names(settings.results_dir):
            agent_paths = AgentPaths(settings.results_dir, name)
            if any(r.get("email_key") == event.email_key for r in logged_emails(agent_paths)):
                return name
    return None
