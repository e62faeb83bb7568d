"""Start or resume a run in this process (the CLI's path; the API uses a process pool)."""

from __future__ import annotations

from typing import Any

from codreamer.config import Settings
from codreamer.errors import RunStateError
from codreamer.graph.store import GraphStore
from codreamer.loop.config import LoopConfig
from codreamer.loop.run_files import create_run
from codreamer.store.agents import AgentPaths, acquire, release
from codreamer.store.feedback import feedback_file
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

    # Taken before anything is written: a second run on the agent is refused.
    agent = AgentPaths(settings.results_dir, config.agent) if config.agent else None
    if agent is not None:
        acquire(agent, run_id, settings.runs_dir)
    try:
        create_run(
            paths,
            store,
            config,
            request=request,
            feedback_path=str(feedback_file(settings.results_dir, config.agent).resolve()),
        )
    except BaseException:
        if agent is not None:
            release(agent, run_id)
        raise
    return paths


def existing_run(settings: Settings, run_id: str) -> RunPaths:
    paths = RunPaths.existing(settings.runs_dir, run_id)
    meta = read_meta(paths)
    if meta.status == "succeeded":
        raise RunStateError(f"run {run_id} already succeeded; nothing to resume")
    name = meta.config.get("agent")
    if isinstance(name, str):
        from codreamer.store.agents import AgentPaths, take_for_resume

        # As the API does: never resume a run another run has taken its agent from,
        # nor one whose agent has moved on (it would fork it). The run frees it at its end.
        agent = AgentPaths(settings.results_dir, name)
        take_for_resume(agent, run_id, settings.runs_dir, meta.config.get("agent_version"))
    return paths
