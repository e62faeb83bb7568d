"""What a run writes about itself: rows of the step files, reward statistics, and
the result handed back to callers."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codreamer.agent.trajectory import Trajectory
from codreamer.models import RewardStats, Scenario
from codreamer.store.files import read_json
from codreamer.store.meta import read_meta
from codreamer.store.paths import RunPaths


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


def groups_jsonl(groups: list[list[Trajectory]], scenarios: list[Scenario]) -> str:
    """The JSONL text of `groups_json`, byte for byte, faster: `model_dump(mode="json")`
    skips printing and re-parsing each trajectory. It differs from a JSON round trip
    only for a non-finite float in a float-typed field (kept, where JSON gets null),
    which `allow_nan=False` catches; such a group takes the round trip."""
    lines = []
    for g, group in enumerate(groups):
        head = {"group": g, "scenario_id": group[0].metadata.scenario_id if group else None}
        row = {**head, "trajectories": [t.model_dump(mode="json") for t in group]}
        try:
            lines.append(json.dumps(row, ensure_ascii=False, allow_nan=False))
        except ValueError:
            lines.append(json.dumps(groups_json([group], scenarios)[0] | head, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


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
    final = read_json(paths.final_email) if paths.final_email.exists() else None
    return RunResult(
        run_id=paths.run_id,
        status=status,
        results_path=paths.dir,
        iterations=read_meta(paths).iteration_metrics,
        final=final,
        error=error,
    )
