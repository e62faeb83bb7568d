"""Start or resume a run in this process (the CLI's path; the API uses a process pool)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codreamer.config import Settings
from codreamer.errors import RunStateError
from codreamer.graph.store import GraphStore
from codreamer.loop.config import LoopConfig
from codreamer.loop.run_files import create_run
from codreamer.store.meta import read_meta
from codreamer.store.paths import RunPaths, check_run_id, new_run_id


def new_local_run(
    settings: Settings,
    store: GraphStore,
    config: LoopConfig,
    run_id: str | None = None,
    request: dict[str, Any] | None = None,
    prefix: str = "run",
) -> RunPaths:
    run_id = check_run_id(run_id) if run_id else new_run_id(prefix)
    paths = RunPaths.for_run(settings.runs_dir, run_id)
    if paths.dir.exists():
        raise RunStateError(f"run {run_id} already exists; resume it with --resume {run_id}")
    feedback = settings.feedback_path
    create_run(
        paths,
        store,
        config,
        request=request,
        feedback_path=str(Path(feedback).resolve()) if feedback.exists() else None,
    )
    return paths


def existing_run(settings: Settings, run_id: str) -> RunPaths:
    paths = RunPaths.for_run(settings.runs_dir, run_id)
    if not paths.meta.exists():
        from codreamer.errors import RunNotFoundError

        raise RunNotFoundError(run_id)
    if read_meta(paths).status == "succeeded":
        raise RunStateError(f"run {run_id} already succeeded; nothing to resume")
    return paths
