"""Benchmark the backend API while runs train, beside a bare route, in one run.

Starts `codreamer api` on 127.0.0.1 in a subprocess (the client does not share
its GIL), starts two long learn-loop runs on ../shared/kg/synthetic-data-16.json,
and while both train measures, over one keep-alive connection, one request at a
time and interleaved so both see the same load:

- `GET /runs/{id}` (reads meta.json, the latest email, the webhook outbox) and
  the bare `GET /healthz`: p50 / p99 latency, then throughput with 4 clients;
- `POST /learn-loop` (validate a 5-node graph, write the run, queue it) beside
  `GET /healthz`: p50 / p99 (each queued run is cancelled, untimed).

It does this twice: runs in their own processes (the default) and runs on API
threads (CODREAMER_RUN_EXECUTOR=thread), which shows what CPU-bound NumPy
training under the same GIL does to API latency.

    uv run python benchmarks/bench_api.py [--n 400] [--posts 60] [--executor process]

Prints one JSON object. Targets (issue 4): GET /runs/{id} p99 < 50 ms and
POST /learn-loop p99 < 100 ms while two runs train (process executor).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from _common import SHARED_KG as KG

from tests.support.api import ApiServer

TRAIN = {"iterations": 50, "depth": 12, "group_size": 256, "seed": 1}
TARGETS_MS = {"get_run_p99": 50.0, "post_learn_loop_p99": 100.0}


def _stats(samples_s: list[float]) -> dict[str, float]:
    ms = sorted(x * 1000 for x in samples_s)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {
        "n": len(ms),
        "p50_ms": round(q[49], 2),
        "p99_ms": round(q[98], 2),
        "max_ms": round(ms[-1], 2),
    }


def _timed(client: httpx.Client, method: str, url: str, **kw: Any) -> tuple[float, httpx.Response]:
    t0 = time.perf_counter()
    r = client.request(method, url, **kw)
    return time.perf_counter() - t0, r


def _throughput(url: str, seconds: float, clients: int = 4) -> float:
    count = [0] * clients
    stop = time.monotonic() + seconds

    def work(i: int) -> None:
        with httpx.Client(timeout=10) as c:
            while time.monotonic() < stop:
                c.get(url).raise_for_status()
                count[i] += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return round(sum(count) / seconds, 1)


def measure(executor: str, n: int, posts: int) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix=f"bench-api-{executor}-"))
    server = ApiServer(
        home,
        {
            "CODREAMER_MAX_CONCURRENT_RUNS": "2",
            "CODREAMER_MAX_QUEUED_RUNS": "500",
            "CODREAMER_RUN_EXECUTOR": executor,
        },
    ).start(timeout=60)
    synthetic = json.loads((KG / "synthetic-data-16.json").read_text())
    weave = json.loads((KG / "weave-feedback-5.request.json").read_text())
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            training = [
                c.post("/learn-loop", json={"graph": synthetic, **TRAIN}).json()["run_id"]
                for _ in range(2)
            ]
            deadline = time.monotonic() + 60
            while any(c.get(f"/runs/{r}").json()["status"] != "running" for r in training):
                if time.monotonic() > deadline:
                    raise RuntimeError("training runs did not start")
                time.sleep(0.05)
            time.sleep(1.0)  # past start-up, into steady training
            target = f"/runs/{training[0]}"
            for _ in range(20):  # warm the connection and the code paths
                c.get(target), c.get("/healthz")

            get_run, healthz = [], []
            for _ in range(n):
                dt, r = _timed(c, "GET", target)
                r.raise_for_status()
                get_run.append(dt)
                dt, r = _timed(c, "GET", "/healthz")
                healthz.append(dt)

            post, post_bare = [], []
            for _ in range(posts):
                dt, r = _timed(c, "POST", "/learn-loop", json={**weave, "iterations": 1})
                assert r.status_code == 202, r.text
                post.append(dt)
                c.post(f"/runs/{r.json()['run_id']}/cancel")  # untimed: keep the queue short
                dt, _ = _timed(c, "GET", "/healthz")
                post_bare.append(dt)

            tput_run = _throughput(server.url + target, 2.0)
            tput_bare = _throughput(server.url + "/healthz", 2.0)
            progress = [c.get(f"/runs/{r}").json() for r in training]
            still = sum(1 for p in progress if p["status"] == "running")
            for r in training:
                c.post(f"/runs/{r}/cancel", json={})
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)
    return {
        "runs_training_during_measurement": 2,
        "runs_still_training_at_end": still,
        "training_iterations_done": [p["progress"].get("iteration") for p in progress],
        "get_run": {**_stats(get_run), "throughput_rps_4_clients": tput_run},
        "get_healthz_bare": {**_stats(healthz), "throughput_rps_4_clients": tput_bare},
        "post_learn_loop": _stats(post),
        "get_healthz_bare_beside_post": _stats(post_bare),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=400, help="GET pairs to time")
    ap.add_argument("--posts", type=int, default=60, help="POST /learn-loop calls to time")
    ap.add_argument("--executor", choices=["process", "thread", "both"], default="both")
    args = ap.parse_args()
    executors = ["process", "thread"] if args.executor == "both" else [args.executor]
    results = {e: measure(e, args.n, args.posts) for e in executors}
    main_result = results.get("process") or next(iter(results.values()))
    out = {
        "benchmark": "bench_api",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "training_run": {"graph": "synthetic-data-16", **TRAIN},
        "targets_ms": TARGETS_MS,
        "results": results,
        "meets_targets": main_result["get_run"]["p99_ms"] < TARGETS_MS["get_run_p99"]
        and main_result["post_learn_loop"]["p99_ms"] < TARGETS_MS["post_learn_loop_p99"],
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
