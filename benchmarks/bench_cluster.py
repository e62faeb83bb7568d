"""Benchmark celery mode on this machine, with real parts (issue 13):

- runs completed per minute with 1 worker, then with 2 workers (the 1-worker figure
  is the baseline, measured in the same run; target: 2 workers >= 1.7x);
- `GET /runs/{id}` p50/p99 from each of two API replicas while the runs train
  (sequential requests over one keep-alive connection per replica; target p99 < 50 ms);
- webhook catch-up: the receiver is down while the 2-worker runs train; once they
  are all finished it comes back, and the time from its return to the last pending
  event acknowledged is measured (it depends on the schedule, printed beside it).

Starts redis-server on a free loopback port, `codreamer worker` processes
(concurrency 1 each) and two `codreamer api` replicas, each in its own directory,
sharing one results directory.

    uv run --extra celery python benchmarks/bench_cluster.py [--runs 8]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import _common  # noqa: F401 - puts the checkout on sys.path, for tests.support
import httpx

from tests.support.api import weave_request
from tests.support.cluster import RedisServer, Worker, cluster_env, replica
from tests.support.receiver import Receiver

# Embedded runs big enough that training, not start-up and hand-offs, dominates (a few
# s each on this machine): since deliveries left the run (Celery tasks), a 3-iteration
# run took under a second and the measure was of queueing, not of training.
RUN = {"iterations": 8, "depth": 5, "group_size": 128}
SCHEDULE = ",".join(["0", "1", "1"] + ["2"] * 60)
TARGETS = {"speedup_2_workers": 1.7, "get_run_p99_ms": 50.0}
TERMINAL = {"succeeded", "failed", "cancelled", "interrupted"}


def _stats(samples_s: list[float]) -> dict[str, float]:
    ms = sorted(x * 1000 for x in samples_s)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"n": len(ms), "p50_ms": round(q[49], 2), "p99_ms": round(q[98], 2)}


def _wait_all(url: str, run_ids: list[str], timeout: float = 900) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=url, timeout=10) as c:
        while True:
            statuses = {rid: c.get(f"/runs/{rid}").json()["status"] for rid in run_ids}
            if all(s in TERMINAL for s in statuses.values()) or time.monotonic() > deadline:
                return statuses
            time.sleep(0.25)


def _poll_latency(url: str, run_id: str, stop: threading.Event, out: list[float]) -> None:
    with httpx.Client(base_url=url, timeout=10) as c:
        while not stop.is_set():
            t0 = time.perf_counter()
            r = c.get(f"/runs/{run_id}")
            out.append(time.perf_counter() - t0)
            assert r.status_code == 200
            time.sleep(0.01)


def phase(home: Path, n_workers: int, n_runs: int, *, measure: bool) -> dict[str, Any]:
    redis = RedisServer(home / "redis").start()
    results = home / "results"
    rx = Receiver()
    if not measure:
        # Throughput alone: a receiver that answers, so the workers' CPU goes to the
        # runs, not to a retry storm against a receiver that is down.
        rx.start()
    env = cluster_env(
        redis,
        results,
        FRONTEND_URL=rx.url,
        CODREAMER_WEBHOOK_SCHEDULE=SCHEDULE,
        CODREAMER_MAX_QUEUED_RUNS=str(n_runs + 4),
    )
    workers = [Worker(home / f"worker-{i}", env) for i in range(n_workers)]
    replicas = [replica(home / f"replica-{i}", env, results) for i in range(2)]
    try:
        for w in workers:
            w.start()
        for r in replicas:
            r.start()
        body = {**weave_request(), **RUN}
        t0 = time.monotonic()
        run_ids = [replicas[i % 2].post_run({**body, "seed": i})["run_id"] for i in range(n_runs)]
        stop = threading.Event()
        samples: list[list[float]] = [[], []]
        pollers = []
        if measure:
            for i, r in enumerate(replicas):
                t = threading.Thread(
                    target=_poll_latency, args=(r.url, run_ids[0], stop, samples[i]), daemon=True
                )
                t.start()
                pollers.append(t)
        statuses = _wait_all(replicas[0].url, run_ids)
        elapsed = time.monotonic() - t0
        stop.set()
        for t in pollers:
            t.join(15)
        out: dict[str, Any] = {
            "workers": n_workers,
            "runs": n_runs,
            "succeeded": sum(1 for s in statuses.values() if s == "succeeded"),
            "seconds": round(elapsed, 2),
            "runs_per_min": round(n_runs / elapsed * 60, 2),
        }
        if measure:
            out["get_run_while_training"] = {
                f"replica_{i + 1}": _stats(s) for i, s in enumerate(samples)
            }
            expected = n_runs * (RUN["iterations"] + 2)
            t_up = time.monotonic()
            rx.start()
            rx.wait_for(expected, timeout=300)
            out["webhook_catch_up"] = {
                "events": expected,
                "acknowledged": len(set(rx.ok_ids())),
                "duplicates": len(rx.ok_ids()) - len(set(rx.ok_ids())),
                "seconds_from_receiver_return_to_last_event": round(
                    max(r.at for r in rx.ok()) - t_up, 2
                ),
                "schedule_s": SCHEDULE[:20] + "…",
            }
        return out
    finally:
        for r in replicas:
            r.stop()
        for w in workers:
            w.stop()
        rx.stop()
        redis.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        # Runs per minute with 1 and 2 workers, measured alike: nothing else running.
        one = phase(Path(tmp) / "one", 1, args.runs, measure=False)
        two_tp = phase(Path(tmp) / "two", 2, args.runs, measure=False)
        # Then, with 2 workers again: GET /runs/{id} latency from both replicas while
        # runs train (pollers hammering the replicas take CPU from the runs, so this
        # phase's runs/min is not the throughput figure), and the receiver down until
        # every run ended, then back: the catch-up.
        two = phase(Path(tmp) / "faults", 2, args.runs, measure=True)
    speedup = two_tp["runs_per_min"] / one["runs_per_min"]
    p99 = max(v["p99_ms"] for v in two["get_run_while_training"].values())
    print(
        json.dumps(
            {
                "benchmark": "cluster",
                "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                "run": RUN,
                "one_worker": one,
                "two_workers": two_tp,
                "two_workers_polled_receiver_down": {
                    k: v for k, v in two.items() if k != "webhook_catch_up"
                },
                "speedup_2_workers": round(speedup, 2),
                "webhook_catch_up": two["webhook_catch_up"],
                "targets": TARGETS,
                "meets": {
                    "speedup_2_workers": speedup >= TARGETS["speedup_2_workers"],
                    "get_run_p99_ms": p99 < TARGETS["get_run_p99_ms"],
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
