"""A run's metadata (`meta.json`), typed: creation, status transitions, progress, and
the status view the API and CLI read.

`RunMeta` is the one reading of meta.json: every module that needs a run's status,
progress, metrics or config reads it through `read_meta`, never as a raw dict. It
lives here, beside the code that writes it, because the loop writes meta.json and
imports point down the layers (DESIGN §10 puts the run store under runs/, which the
loop may not import). Writes stay a read-modify-write of the file's own keys, so a
field this version does not know (written by a newer one) is kept, and the files of
existing runs load unchanged (their config through `LoopConfig`, which reads the
layouts of older runs too)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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


class RunMeta(BaseModel):
    """meta.json. Unknown keys are kept (`extra="allow"`), so nothing is lost."""

    model_config = ConfigDict(extra="allow")

    run_id: str
    status: RunStatus
    created_at: str | None = None
    updated_at: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    request: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] = Field(
        default_factory=dict,
        description="The resolved LoopConfig as written (read it with `loop_config()`).",
    )
    seed: int | None = None
    graph_hash: str | None = None
    graph_size: dict[str, int] | None = None
    feedback_path: str | None = None
    progress: dict[str, Any] = Field(default_factory=dict)
    metrics: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None

    def loop_config(self) -> LoopConfig:
        return LoopConfig.model_validate(self.config)

    @property
    def iteration_metrics(self) -> list[dict[str, Any]]:
        """One entry per completed iteration, in order."""
        return list(self.metrics.get("iterations") or [])

    @property
    def iterations(self) -> int:
        return int(self.config["iterations"])


def read_meta(paths: RunPaths) -> RunMeta:
    return RunMeta.model_validate(read_json(paths.meta))


def update_meta(paths: RunPaths, **changes: Any) -> RunMeta:
    """Read-modify-write of meta.json. Only the process running the run writes it
    while it runs, so no lock is needed beyond the atomic rename. The result is
    validated before it is written: a bad status never reaches the file."""
    raw = read_json(paths.meta)
    raw.update(changes)
    raw["updated_at"] = utc_now_iso()
    meta = RunMeta.model_validate(raw)
    atomic_write_json(paths.meta, raw)
    return meta


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
    config = meta.loop_config()
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
