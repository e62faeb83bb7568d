"""Learning curves: greedy reward / oracle per iteration, mean over seeds, per graph.

Also the untrained policy's mean sampled rollout reward / oracle (how much the
choice of path and style matters). Prints JSON.

    uv run python benchmarks/bench_learning.py [--seeds 5] [--iterations 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import GRAPHS, REPO, emit

from codreamer.agent.policies.embedded import EmbeddedPolicy
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.config import Settings
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.judge.rubric import RubricJudge
from codreamer.loaders import load_scenarios
from codreamer.loop.config import LoopConfig
from codreamer.loop.learn_loop import run_learn_loop
from codreamer.loop.local import new_local_run
from codreamer.train.oracle import oracle


def untrained_mean(store: GraphStore, scenario, depth: int, n: int = 2000) -> float:
    policy = EmbeddedPolicy(store)
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, depth)
    judge = RubricJudge(store)
    rng = np.random.default_rng(12345)
    meta = TrajectoryMeta(trajectory_id="u", scenario_id=scenario.id, iteration=0)
    return statistics.fmean(
        judge.judge(rollout(policy, env, rng, meta).final_email, scenario).total for _ in range(n)
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--group-size", type=int, default=None, help="override the default")
    ap.add_argument("--lr", type=float, default=None, help="override the default")
    ap.add_argument("--mu", type=int, default=None, help="override the default")
    args = ap.parse_args()
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    out: dict = {
        "seeds": args.seeds,
        "iterations": args.iterations,
        "depth": args.depth,
        "scenario": scenario.id,
        "graphs": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(CODREAMER_RESULTS_DIR=Path(tmp), CODREAMER_DATA_DIR=REPO / "data")
        for name, path in GRAPHS.items():
            store = GraphStore.from_json(json.loads(path.read_text()))
            best = oracle(store, scenario, args.depth).reward
            curves, finals = [], []
            t0 = time.perf_counter()
            for seed in range(args.seeds):
                grpo = {
                    k: v
                    for k, v in (
                        ("group_size", args.group_size),
                        ("seed", seed),
                        ("learning_rate", args.lr),
                        ("mu", args.mu),
                    )
                    if v is not None
                }
                config = LoopConfig(
                    iterations=args.iterations, depth=args.depth, scenario=scenario, grpo=grpo
                )
                paths = new_local_run(settings, store, config)
                result = run_learn_loop(paths, settings=settings)
                assert result.status == "succeeded", result.error
                curve = [m["greedy_reward"] / best for m in result.iterations]
                curves.append(curve)
                finals.append(result.final["reward"])
            mean_curve = [
                round(statistics.fmean(c[i] for c in curves), 4) for i in range(len(curves[0]))
            ]
            final_mean = statistics.fmean(finals)
            untrained = untrained_mean(store, scenario, args.depth)
            out["graphs"][name] = {
                "oracle_reward": round(best, 4),
                "greedy_over_oracle_by_iteration": mean_curve,
                "final_reward_mean": round(final_mean, 4),
                "final_over_oracle": round(final_mean / best, 4),
                "final_rewards": [round(f, 4) for f in finals],
                "untrained_mean_rollout_reward": round(untrained, 4),
                "untrained_over_oracle": round(untrained / best, 4),
                "meets_final_target_0.97": final_mean / best >= 0.97,
                "meets_untrained_target_0.8": untrained / best <= 0.8,
                "wall_s_all_seeds": round(time.perf_counter() - t0, 3),
            }
    emit(out)


if __name__ == "__main__":
    main()
