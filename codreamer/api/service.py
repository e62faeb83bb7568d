"""What the route handlers do, without HTTP: build and start runs, read run views.

Handlers stay thin; everything here raises the typed errors of
codreamer/errors.py and the API layer maps them to statuses.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from codreamer.api.schemas import LearnLoopRequest
from codreamer.config import Settings
from codreamer.errors import ScenarioError
from codreamer.graph.schema import parse_graph
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.loop.config import LoopConfig
from codreamer.loop.run_files import create_run, read_status
from codreamer.models import Scenario
from codreamer.runs.executors import Executor
from codreamer.store.files import read_json
from codreamer.store.meta import read_meta
from codreamer.store.paths import RunPaths, new_run_id
from codreamer.store.run_list import iter_runs
from codreamer.store.storage import check_room, check_writable, estimate_run_bytes, storage_error
from codreamer.webhooks.outbox import read_outbox, summarize

# The request fields that are run settings (codreamer.runs.spec.RunSpec).
REQUEST_SETTINGS = (
    "iterations", "depth", "group_size", "seed", "policy", "trainer", "judge", "sender",
    "patience",
)  # fmt: skip


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
        from codreamer.loaders import load_graph

        path = self.settings.default_graph_path
        return self._cached(  # type: ignore[no-any-return]
            "graph", path, lambda p: load_graph(p, self.settings.max_graph_nodes)
        )

    def scenarios(self) -> list[Scenario]:
        from codreamer.loaders import load_scenarios

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
        known = ", ".join(s.id for s in scenarios) or "none"
        raise ScenarioError(f"scenario: unknown scenario id {choice!r}; known ids: {known}")


def _check_backends(config: LoopConfig, settings: Settings) -> None:
    """Refuse, before anything is written, a policy or judge this server cannot run
    (the same one-line ConfigError the CLI gives; the embedded/rubric default needs
    nothing)."""
    if config.policy != "embedded" or config.judge != "rubric":
        from codreamer.preflight import check_ready

        check_ready(config, settings)


def config_from_request(
    req: LearnLoopRequest, settings: Settings, catalog: Catalog, store: GraphStore
) -> LoopConfig:
    """The run's config from the request body: RunSpec resolves the settings (the
    same resolution the CLI uses), then the backends are checked."""
    from codreamer.runs.spec import build_loop_config

    choices = ([req.scenario] if req.scenario is not None else []) + list(req.scenarios or [])
    given = {name: getattr(req, name) for name in REQUEST_SETTINGS}
    config = build_loop_config(
        given,
        [catalog.scenario(c) for c in choices],
        catalog.scenarios(),
        # A graph of the request's own never gets a sample prospect (DESIGN §2).
        own_graph=req.graph is not None,
        node_ids=store.nodes,
        settings=settings,
    )
    _check_backends(config, settings)
    return config


def start_run(
    req: LearnLoopRequest, settings: Settings, catalog: Catalog, manager: Executor
) -> tuple[RunPaths, int, LoopConfig, int]:
    """Validate everything, then create and queue the run. Nothing touches the disk
    unless the request is valid, the store is usable, has room, and the queue has room.
    Returns the run's paths, queue position, config and estimated disk use."""
    if req.graph is not None:
        store = GraphStore(parse_graph(req.graph, max_nodes=settings.max_graph_nodes))
    else:
        store = catalog.default_graph()
    config = config_from_request(req, settings, catalog, store)
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
    feedback = settings.feedback_path
    feedback_path = str(feedback.resolve()) if feedback.exists() else None
    request = req.model_dump(exclude={"graph"}, exclude_none=True, mode="json")
    # Never an absolute server path: meta.json's request is shown to API callers.
    request["graph"] = "request" if req.graph is not None else "default"

    def create() -> None:
        try:
            create_run(paths, store, config, request=request, feedback_path=feedback_path)
        except OSError as exc:
            raise storage_error(exc, settings.results_dir) from exc

    position = manager.submit(paths.run_id, create)
    return paths, position, config, estimate


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


def list_runs(settings: Settings, limit: int, status: str | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name, meta in iter_runs(settings.runs_dir, status):
        out.append(
            {
                "run_id": name,
                "status": meta.status,
                "created_at": meta.created_at,
                "updated_at": meta.updated_at,
                "progress": meta.progress,
            }
        )
        if len(out) >= limit:
            break
    return out
