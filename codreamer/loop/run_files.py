"""A learn-loop run on the store: its files created from a resolved `LoopConfig` and a
graph, and the status view the API and CLI read (DESIGN §5, §6)."""

from __future__ import annotations

import json
from typing import Any

from codreamer.graph.store import GraphStore
from codreamer.loop.config import LoopConfig
from codreamer.store.files import read_json
from codreamer.store.meta import new_run, read_meta
from codreamer.store.paths import RunPaths


def create_run(
    paths: RunPaths,
    store: GraphStore,
    config: LoopConfig,
    request: dict[str, Any] | None = None,
    feedback_path: str | None = None,
) -> dict[str, Any]:
    """Write meta.json (status `queued`) and the run's own copy of the graph."""
    return new_run(
        paths,
        graph=store.to_json(),
        graph_hash=store.digest(),
        graph_size={"nodes": len(store), "edges": store.edge_count},
        config=json.loads(config.model_dump_json()),
        seed=config.seed,
        iterations=config.iterations,
        request=request,
        feedback_path=feedback_path,
    )


def read_status(paths: RunPaths) -> dict[str, Any]:
    """What `GET /runs/{id}` returns: status, progress, metrics, latest email, error."""
    meta = read_meta(paths)
    latest = None
    if paths.final_email.exists():
        latest = read_json(paths.final_email)
    else:
        done = [m["iteration"] for m in meta.iteration_metrics]
        for k in sorted(done, reverse=True) + [0]:
            if paths.email(k).exists():
                latest = read_json(paths.email(k))
                break
    config = LoopConfig.from_meta(meta)
    return {
        "run_id": meta.run_id,
        "status": meta.status,
        "created_at": meta.created_at,
        "updated_at": meta.updated_at,
        "started_at": meta.started_at,
        "finished_at": meta.finished_at,
        "progress": meta.progress,
        "metrics": meta.metrics,
        "latest_email": latest,
        "eval": read_json(paths.eval_report) if paths.eval_report.exists() else None,
        "error": meta.error,
        "config": {
            "iterations": config.iterations,
            "depth": config.depth,
            "policy": config.policy,
            "judge": config.judge,
            "group_size": config.group_size,
            "seed": config.seed,
            "scenario_id": config.scenario.id,
        },
        "graph_hash": meta.graph_hash,
        "results_path": str(paths.dir),
    }
