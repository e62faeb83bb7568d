"""The default path stays as fast as before the LLM/ART work: wall time of

    codreamer learn-loop 5 5 --json --graph ../shared/kg/synthetic-data-16.json

as a user runs it (process start included; median of a few repeats), with
nothing configured, and which heavy optional modules that process imported
(none expected, even with the `art` extra installed). Compare `median_s` with
`learn_loop_5_iterations_json.median_s` of bench_learn_loop.py.

    uv run python benchmarks/bench_default_path.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, SHARED_KG, emit

HEAVY = ("art", "weave", "litellm", "openai", "torch", "wandb")
# Settings a developer may have exported; the default path is "nothing configured".
_PREFIXES = ("CODREAMER_", "OPENAI_", "ART_", "WANDB_", "WEAVE_", "LITELLM_")

PROBE = """
import atexit, json, sys
atexit.register(lambda: print("HEAVY=" + json.dumps(sorted(
    {{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))), file=sys.stderr))
sys.argv = ["codreamer", *{args!r}]
from codreamer.cli import main
main()
"""


def clean_env(results: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(_PREFIXES) and k not in ("FRONTEND_URL", "RUN_ID")
    }
    env.update(CODREAMER_RESULTS_DIR=results, CODREAMER_DATA_DIR=str(REPO / "data"))
    return env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    graph = os.path.relpath(SHARED_KG / "synthetic-data-16.json", REPO)
    cli_args = ["learn-loop", "5", "5", "--json", "--graph", graph]
    codreamer = str(Path(sys.executable).parent / "codreamer")
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        env = clean_env(tmp)
        for _ in range(args.repeats):
            t = time.perf_counter()
            p = subprocess.run(
                [codreamer, *cli_args],
                env=env,
                cwd=REPO,
                capture_output=True,
                text=True,
                check=True,
            )
            walls.append(time.perf_counter() - t)
        status = json.loads(p.stdout.splitlines()[-1])["status"]
        probe = subprocess.run(
            [sys.executable, "-c", PROBE.format(heavy=HEAVY, args=cli_args)],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
    line = next(x for x in reversed(probe.stderr.splitlines()) if x.startswith("HEAVY="))
    emit(
        {
            "benchmark": "default_path",
            "command": "codreamer " + " ".join(cli_args),
            "repeats": args.repeats,
            "status": status,
            "median_s": round(statistics.median(walls), 3),
            "min_s": round(min(walls), 3),
            "max_s": round(max(walls), 3),
            "heavy_modules_installed": [m for m in HEAVY if importlib.util.find_spec(m)],
            "heavy_modules_imported": json.loads(line[len("HEAVY=") :]),
        }
    )


if __name__ == "__main__":
    main()
