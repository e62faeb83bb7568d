"""A run's metadata (`meta.json`): creation, status transitions, progress, and the
status view the API and CLI read."""

from __future__ import annotations

import json
from typing import Any, Literal

from codreamer.graph.store import GraphStore
from codreamer.loop.artifacts import RunPaths, atomic_write_json, read_json
from codreamer.loop.config import LoopConfig
from codreamer.models import utc_now_iso

RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled", "interrupted"]
TERMINAL_STATUSES = frozenset({"succeeded", "failed", "cancelled"})


def create_run(
    paths: RunPaths,
    store: GraphStore,
    config: LoopConfig,
    request: dict[str, Any] | None = None,
    feedback_path: str | None = None,
) -> dict[str, Any]:
    """Write meta.json (status `queued`) and the run's own copy of the graph."""
    paths.dir.mkdir(parents=True, exist_ok=False)
    atomic_write_json(paths.graph, store.to_json())
    now = utc_now_iso()
    meta: dict[str, Any] = {
        "run_id": paths.run_id,
        "status": "queued",
        "created_at": now,
        "updated_at": now,
        "started_at": None,
        "finished_at": None,
        "request": request or {},
        "config": json.loads(config.model_dump_json()),
        "seed": config.seed,
        "graph_hash": store.digest(),
        "graph_size": {"nodes": len(store), "edges": store.edge_count},
        "feedback_path": feedback_path,
        "progress": {
            "iteration": 0,
            "iterations": config.iterations,
            "step": None,
            "fraction": 0.0,
        },
        "metrics": {"iterations": []},
        "error": None,
    }
    atomic_write_json(paths.meta, meta)
    return meta


def read_meta(paths: RunPaths) -> dict[str, Any]:
    return read_json(paths.meta)


def update_meta(paths: RunPaths, **changes: Any) -> dict[str, Any]:
    """Read-modify-write of meta.json. Only the process running the run writes it
    while it runs, so no lock is needed beyond the atomic rename."""
    meta = read_json(paths.meta)
    meta.update(changes)
    meta["updated_at"] = utc_now_iso()
    atomic_write_json(paths.meta, meta)
    return meta


def read_status(paths: RunPaths) -> dict[str, Any]:
    """What `GET /runs/{id}` returns: status, progress, metrics, latest email, error."""
    meta = read_meta(paths)
    latest = None
    if paths.final_email.exists():
        latest = read_json(paths.final_email)
    else:
        done = [m["iteration"] for m in meta.get("metrics", {}).get("iterations", [])]
        for k in sorted(done, reverse=True) + [0]:
            if paths.email(k).exists():
                latest = read_json(paths.email(k))
                break
    config = meta.get("config", {})
    return {
        "run_id": meta["run_id"],
        "status": meta["status"],
        "created_at": meta.get("created_at"),
        "updated_at": meta.get("updated_at"),
        "started_at": meta.get("started_at"),
        "finished_at": meta.get("finished_at"),
        "progress": meta.get("progress", {}),
        "metrics": meta.get("metrics", {}),
        "latest_email": latest,
        "eval": read_json(paths.eval_report) if paths.eval_report.exists() else None,
        "error": meta.get("error"),
        "config": {
            k: config.get(k) for k in ("iterations", "depth", "policy", "judge") if k in config
        }
        | {
            # Runs written before RunSpec keep these two inside `grpo`.
            "group_size": config.get("group_size", config.get("grpo", {}).get("group_size")),
            "seed": config.get("seed", config.get("grpo", {}).get("seed")),
            "scenario_id": config.get("scenario", {}).get("id"),
        },
        "graph_hash": meta.get("graph_hash"),
        "results_path": str(paths.dir),
    }
