"""How time per iteration grows with graph size: generated graphs of 100, 1,000 and
10,000 nodes (layered Customer Job -> ... -> Product Feature, with cycles and dead
ends), a full learn-loop on each; load, validate and train must not fail.

    uv run python benchmarks/bench_scaling.py [--sizes 100 1000 10000] [--iterations 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from _common import REPO, emit, generated_graph

from codreamer.config import Settings
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_scenarios
from codreamer.loop.learn_loop import run_learn_loop
from codreamer.loop.local import new_local_run
from codreamer.runs.spec import RunSpec
from codreamer.store.files import read_jsonl


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--depth", type=int, default=5)
    args = ap.parse_args()
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(CODREAMER_RESULTS_DIR=Path(tmp), CODREAMER_DATA_DIR=REPO / "data")
        for n in args.sizes:
            raw = generated_graph(n)
            t0 = time.perf_counter()
            store = GraphStore.from_json(raw, max_nodes=settings.max_graph_nodes)
            load_s = time.perf_counter() - t0
            config = RunSpec(iterations=args.iterations, depth=args.depth).loop_config([scenario])
            t1 = time.perf_counter()
            paths = new_local_run(settings, store, config)
            result = run_learn_loop(paths, settings=settings)
            total_s = time.perf_counter() - t1
            assert result.status == "succeeded", result.error
            # per-iteration wall time from the run's own events (step timings)
            steps = [
                e for e in read_jsonl(paths.events) if e["type"] == "step_finished" and "ms" in e
            ]
            per_iter: dict[int, float] = {}
            for e in steps:
                per_iter[e["iteration"]] = per_iter.get(e["iteration"], 0.0) + e["ms"]
            rows.append(
                {
                    "nodes": n,
                    "edges": store.edge_count,
                    "load_and_validate_s": round(load_s, 4),
                    "run_s": round(total_s, 4),
                    "iteration_ms_median": round(statistics.median(per_iter.values()), 2),
                    "final_reward": result.final["reward"] if result.final else None,
                }
            )
    base = rows[0]
    for r in rows:
        r["nodes_ratio"] = round(r["nodes"] / base["nodes"], 1)
        r["iteration_time_ratio"] = round(r["iteration_ms_median"] / base["iteration_ms_median"], 2)
        r["run_time_ratio"] = round(r["run_s"] / base["run_s"], 2)
    emit(
        {
            "benchmark": "scaling_with_graph_size",
            "iterations": args.iterations,
            "depth": args.depth,
            "rows": rows,
            "grows_no_faster_than_linear": all(
                r["iteration_time_ratio"] <= r["nodes_ratio"] for r in rows
            ),
        }
    )


if __name__ == "__main__":
    main()
