"""What exactly-once webhook delivery costs (issue 13): every sender claims an event,
reads the outbox again under the claim, POSTs, records, and lets go.

- claim + release of one event (an flock on a claim file), median and p99 in µs;
- wall time to deliver every pending event of a store (runs of 52 events, the
  most a run can have: 50 iterations + baseline + final) to a real uvicorn
  receiver with 1 store-wide dispatcher (the baseline, measured in the same run)
  and with 4 racing, and the receiver's count of duplicates (must be 0).

    uv run python benchmarks/bench_webhook_claims.py [--runs 4]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import _common  # noqa: F401 - puts the checkout on sys.path, for tests.support
from fastapi import FastAPI, Request, Response

from codreamer.config import Settings
from codreamer.models import FinalEmail, WebhookPayload
from codreamer.store.paths import RunPaths
from codreamer.webhooks.claims import FileClaims
from codreamer.webhooks.dispatcher import Dispatcher
from codreamer.webhooks.outbox import Outbox
from codreamer.webhooks.schedule import parse_schedule
from tests.support.server import serve_in_thread

SCHEDULE = "0,0.2,0.2,0.2"
EVENTS_PER_RUN = 52


def _receiver() -> tuple[FastAPI, Counter[str], threading.Lock]:
    app, seen, lock = FastAPI(), Counter[str](), threading.Lock()

    @app.post("/hook")
    async def hook(request: Request) -> Response:
        await request.body()
        with lock:
            seen[request.headers.get("webhook-id", "")] += 1
        return Response(status_code=200)

    return app, seen, lock


def _store(root: Path, runs: int) -> Path:
    runs_dir = root / "runs"
    for r in range(runs):
        paths = RunPaths(runs_dir / f"api-20250101-120000-{r:06x}")
        paths.dir.mkdir(parents=True)
        outbox = Outbox(paths, parse_schedule(SCHEDULE))
        for k in range(EVENTS_PER_RUN):
            stage = "baseline" if k == 0 else "final" if k == EVENTS_PER_RUN - 1 else "iteration"
            outbox.enqueue(
                WebhookPayload(
                    run_id=paths.run_id,
                    stage=stage,  # type: ignore[arg-type]
                    iteration=k,
                    iterations=EVENTS_PER_RUN - 2,
                    final_email=FinalEmail(subject="Hi", body="Body", citations=["Customer Job"]),
                    node_scores={"Customer Job": 0.7},
                    metrics={"mean": 0.5},
                )
            )
    return runs_dir


def _deliver(runs_dir: Path, url: str, dispatchers: int, total: int, seen: Counter[str]) -> float:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, webhook_schedule=SCHEDULE, webhook_timeout_s=5.0, webhook_secret=None
    )
    t0 = time.perf_counter()
    ds = [Dispatcher.for_store(runs_dir, settings, url=url).start() for _ in range(dispatchers)]
    try:
        deadline = time.monotonic() + 300
        while len(seen) < total and time.monotonic() < deadline:
            time.sleep(0.01)
        elapsed = time.perf_counter() - t0
    finally:
        for d in ds:
            d.close()
    return elapsed


def _claim_cost(root: Path, n: int = 2000) -> dict[str, float]:
    paths = RunPaths(root / "claims" / "api-20250101-120000-ffffff")
    paths.dir.mkdir(parents=True)
    claims, samples = FileClaims(), []
    for i in range(n):
        t0 = time.perf_counter()
        release = claims.claim(paths, f"msg_{i % 50}")
        assert release is not None
        release()
        samples.append((time.perf_counter() - t0) * 1e6)
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"n": n, "p50_us": round(q[49], 1), "p99_us": round(q[98], 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    total = args.runs * EVENTS_PER_RUN
    out: dict[str, Any] = {
        "bench": "webhook_claims",
        "python": platform.python_version(),
        "runs": args.runs,
        "events": total,
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        out["claim_release"] = _claim_cost(root)
        for dispatchers in (1, 4):
            app, seen, lock = _receiver()
            with serve_in_thread(app) as base:
                runs_dir = _store(root / f"d{dispatchers}", args.runs)
                elapsed = _deliver(runs_dir, f"{base}/hook", dispatchers, total, seen)
                time.sleep(0.5)  # room for a late duplicate
            with lock:
                dupes = sum(n - 1 for n in seen.values() if n > 1)
                got = len(seen)
            out[f"dispatchers_{dispatchers}"] = {
                "delivered": got,
                "duplicates": dupes,
                "seconds": round(elapsed, 3),
                "events_per_s": round(got / elapsed, 1),
            }
    out["ok"] = all(out[f"dispatchers_{d}"]["duplicates"] == 0 for d in (1, 4)) and all(
        out[f"dispatchers_{d}"]["delivered"] == total for d in (1, 4)
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
