"""What a run writes about itself: rows of the step files, reward statistics, and
the result handed back to callers."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codreamer.agent.trajectory import Trajectory
from codreamer.loop.artifacts import RunPaths, read_json
from codreamer.models import RewardStats, Scenario


@dataclass
class RunResult:
    run_id: str
    status: str
    results_path: Path
    iterations: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] | None = None
    error: str | None = None


def reward_stats(trajs: list[Trajectory]) -> RewardStats:
    rs = [float(t.reward) for t in trajs if t.reward is not None]
    if not rs:
        return RewardStats()
    return RewardStats(
        n=len(rs),
        mean=statistics.fmean(rs),
        median=statistics.median(rs),
        min=min(rs),
        max=max(rs),
        std=statistics.pstdev(rs),
    )


def groups_json(groups: list[list[Trajectory]], scenarios: list[Scenario]) -> list[dict[str, Any]]:
    return [
        {
            "group": g,
            "scenario_id": group[0].metadata.scenario_id if group else None,
            "trajectories": [json.loads(t.model_dump_json()) for t in group],
        }
        for g, group in enumerate(groups)
    ]


def per_traj_rows(groups: list[list[Trajectory]]) -> list[dict[str, Any]]:
    return [
        {
            "trajectory_id": t.id,
            "group": t.metadata.group,
            "reward": t.reward,
            "components": t.reward_components,
            "criteria": {k: c.score for k, c in t.judgement.criteria.items()}
            if t.judgement
            else {},
            "citations": t.final_email.citations,
        }
        for g in groups
        for t in g
    ]


def run_result(paths: RunPaths, status: str, error: str | None = None) -> RunResult:
    from codreamer.loop.status import read_meta

    final = read_json(paths.final_email) if paths.final_email.exists() else None
    return RunResult(
        run_id=paths.run_id,
        status=status,
        results_path=paths.dir,
        iterations=read_meta(paths).iteration_metrics,
        final=final,
        error=error,
    )
