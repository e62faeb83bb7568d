"""Wall time of a whole 5-iteration learn-loop as a user runs it (process start
included), beside a bare Python start and `codreamer --help` in the same run.

    uv run python benchmarks/bench_learn_loop.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from _common import REPO, SHARED_KG, emit


def timed(cmd: list[str], env: dict[str, str], repeats: int) -> dict:
    walls = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=REPO)
        walls.append(time.perf_counter() - t)
    return {
        "median_s": round(statistics.median(walls), 3),
        "min_s": round(min(walls), 3),
        "max_s": round(max(walls), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--graph", default=str(SHARED_KG / "synthetic-data-16.json"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, CODREAMER_RESULTS_DIR=tmp, CODREAMER_DATA_DIR=str(REPO / "data"))
        env.pop("FRONTEND_URL", None)
        env.pop("RUN_ID", None)
        cli = [sys.executable, "-m", "codreamer.cli"]
        out = {
            "benchmark": "learn_loop_wall",
            "graph": os.path.basename(args.graph),
            "repeats": args.repeats,
            "python_start": timed([sys.executable, "-c", "pass"], env, args.repeats),
            "codreamer_help": timed([*cli, "--help"], env, args.repeats),
            "learn_loop_5_iterations_json": timed(
                [*cli, "learn-loop", "5", "5", "--graph", args.graph, "--json"], env, args.repeats
            ),
        }
    out["target_s"] = 2.0
    out["meets_target"] = out["learn_loop_5_iterations_json"]["median_s"] < 2.0
    emit(out)


if __name__ == "__main__":
    main()
