"""Judged embedded rollouts per second on one core (rollout + rubric judge).

uv run python benchmarks/bench_rollouts.py [--graph PATH] [--seconds 3]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _common import REPO, SHARED_KG, emit

from codreamer.agent.policies.embedded import EmbeddedPolicy
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.judge.base import RubricGroupJudge
from codreamer.loaders import load_scenarios


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", type=Path, default=SHARED_KG / "synthetic-data-16.json")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--depth", type=int, default=5)
    args = ap.parse_args()
    store = GraphStore.from_json(json.loads(args.graph.read_text()))
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, args.depth)
    policy = EmbeddedPolicy(store)
    loop_judge = RubricGroupJudge(store)  # what the learn-loop uses (memoised)
    cold = loop_judge.rubric  # the rubric itself, every email judged afresh
    rng = np.random.default_rng(0)
    meta = TrajectoryMeta(trajectory_id="b", scenario_id=scenario.id, iteration=1)

    def measure(judge_one) -> dict:
        n = 0
        t_roll = t_judge = 0.0
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            a = time.perf_counter()
            t = rollout(policy, env, rng, meta)
            b = time.perf_counter()
            judge_one(t.final_email)
            c = time.perf_counter()
            t_roll += b - a
            t_judge += c - b
            n += 1
        wall = time.perf_counter() - start
        return {
            "rollouts": n,
            "judged_rollouts_per_s": round(n / wall, 1),
            "rollout_only_per_s": round(n / t_roll, 1),
            "judge_only_per_s": round(n / t_judge, 1),
            "mean_us_per_judged_rollout": round(wall / n * 1e6, 1),
        }

    for _ in range(300):  # warm caches (features, serialised tool results, templates)
        loop_judge.score(rollout(policy, env, rng, meta).final_email, scenario)
    as_in_loop = measure(lambda e: loop_judge.score(e, scenario))
    cold_judge = measure(lambda e: cold.judge(e, scenario))
    emit(
        {
            "benchmark": "judged_embedded_rollouts",
            "graph": args.graph.name,
            "depth": args.depth,
            "seconds_each": args.seconds,
            "as_in_learn_loop": as_in_loop,
            "every_email_judged_afresh": cold_judge,
            "target_per_s": 1000,
            "meets_target_as_in_loop": as_in_loop["judged_rollouts_per_s"] >= 1000,
            "meets_target_judged_afresh": cold_judge["judged_rollouts_per_s"] >= 1000,
            "cores_used": 1,
        }
    )


if __name__ == "__main__":
    main()
