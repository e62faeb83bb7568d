"""A run's metadata (`meta.json`), typed: creation, status transitions, progress
(DESIGN §5).

`RunMeta` is the one reading of meta.json: every module that needs a run's status,
progress, metrics or config reads it through `read_meta`, never as a raw dict. The
store sits below the loop (DESIGN §10), so the config is kept here as the dict it
was written as; `LoopConfig.from_meta` types it. Writes stay a read-modify-write of
the file's own keys, so a field this version does not know (written by a newer one)
is kept, and the files of existing runs load unchanged."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from codreamer.models import utc_now_iso
from codreamer.store.files import atomic_write_json, read_json
from codreamer.store.paths import RunPaths
from codreamer.store.status import RunStatus


def new_run(
    paths: RunPaths,
    *,
    graph: Any,
    graph_hash: str,
    graph_size: dict[str, int],
    config: dict[str, Any],
    seed: int,
    iterations: int,
    request: dict[str, Any] | None = None,
    feedback_path: str | None = None,
) -> dict[str, Any]:
    """Write meta.json (status `queued`) and the run's own copy of the graph. The
    directory must not exist yet: two callers never create the same run."""
    paths.dir.mkdir(parents=True, exist_ok=False)
    atomic_write_json(paths.graph, graph)
    now = utc_now_iso()
    meta: dict[str, Any] = {
        "run_id": paths.run_id,
        "status": "queued",
        "created_at": now,
        "updated_at": now,
        "started_at": None,
        "finished_at": None,
        "request": request or {},
        "config": config,
        "seed": seed,
        "graph_hash": graph_hash,
        "graph_size": graph_size,
        "feedback_path": feedback_path,
        "progress": {
            "iteration": 0,
            "iterations": iterations,
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
        description="The resolved LoopConfig as written (read it with `LoopConfig.from_meta`).",
    )
    seed: int | None = None
    graph_hash: str | None = None
    graph_size: dict[str, int] | None = None
    feedback_path: str | None = None
    progress: dict[str, Any] = Field(default_factory=dict)
    metrics: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None

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
