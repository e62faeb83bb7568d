"""Taking an agent back for a resumed run (codreamer/store/agents.py), on real files:
refused while another live run holds it or once the agent has moved on from the
version the run started from; held while the resumed run is not yet queued again."""

from __future__ import annotations

from pathlib import Path

import pytest

from codreamer.errors import AgentBusyError, AgentMovedOnError
from codreamer.store.agents import AgentPaths, acquire, lock_holder, record_version, take_for_resume
from codreamer.store.files import atomic_write_json


def make_run(runs: Path, run_id: str, status: str) -> None:
    (runs / run_id).mkdir(parents=True, exist_ok=True)
    atomic_write_json(runs / run_id / "meta.json", {"run_id": run_id, "status": status})


def version(agent: AgentPaths, run_id: str) -> int:
    manifest = {"run_id": run_id, "config": {}, "lineage": {"runs": [run_id]}}
    return record_version(agent, manifest=manifest, policy={}, node_scores={}, graph=[])


A = "api-20260101-000000-aaaaaa"
B = "api-20260101-000001-bbbbbb"


def test_resume_refused_while_another_run_holds_the_agent(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    agent = AgentPaths(tmp_path, "team")
    make_run(runs, A, "interrupted")
    make_run(runs, B, "running")
    acquire(agent, B, runs)
    with pytest.raises(AgentBusyError, match=B):
        take_for_resume(agent, A, runs, None)
    assert lock_holder(agent, runs) == B


def test_resume_refused_once_the_agent_moved_on(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    agent = AgentPaths(tmp_path, "team")
    make_run(runs, A, "interrupted")
    assert version(agent, "run-x") == 1
    assert version(agent, "run-y") == 2  # recorded by a run that took over the agent
    with pytest.raises(AgentMovedOnError, match=r"moved on to v2 .* started from v1"):
        take_for_resume(agent, A, runs, 1)
    assert lock_holder(agent, runs) is None  # nothing taken


def test_resume_taken_and_held_until_queued(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    agent = AgentPaths(tmp_path, "team")
    make_run(runs, A, "interrupted")
    assert version(agent, "run-x") == 1
    take_for_resume(agent, A, runs, 1)
    # Still `interrupted` on disk, yet held: nobody slips in before it is queued.
    assert lock_holder(agent, runs) == A
    with pytest.raises(AgentBusyError):
        acquire(agent, B, runs)

    # A run that already recorded its version may resume past it (it never records twice).
    make_run(runs, B, "failed")
    agent2 = AgentPaths(tmp_path, "other")
    version(agent2, "run-x")
    version(agent2, B)
    version(agent2, "run-z")
    take_for_resume(agent2, B, runs, 1)
    assert lock_holder(agent2, runs) == B
