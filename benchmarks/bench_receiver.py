"""Benchmark the dashboard's webhook receiver against a bare route, in one run.

Starts the dashboard with uvicorn on 127.0.0.1 in a subprocess (so the client
does not share its GIL), then sends N signed webhooks over one keep-alive httpx
connection, and N requests to the bare `GET /healthz`, one at a time. Every
webhook has its own webhook-id and a higher iteration, so each one is verified,
validated, stored and published (none short-circuits as a duplicate or stale).
Requests are signed before the clock starts: the numbers are the server's.

    uv run python benchmarks/bench_receiver.py [--n 3000]

Prints one JSON object. Target (issue 5): >= 1000 webhooks/s, p99 < 20 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from _common import REPO as ROOT

from tests.support.server import ServerProcess, free_port, uvicorn_ready
from web.signature import sign_headers

SECRET = "bench-shared-secret"
MAX_SECONDS_PER_PHASE = 60.0

SERVER = """
import uvicorn
from web.app import create_app
from web.config import WebSettings
settings = WebSettings(webhook_secret={secret!r}, api_url="http://127.0.0.1:9")
# "info" for uvicorn's one "running on" line, the launcher's sign; no line a request.
uvicorn.run(create_app(settings), host="127.0.0.1", port={port}, log_level="info",
            access_log=False)
"""


def start_server(port: int) -> ServerProcess:
    """The dashboard in its own process, ready once uvicorn says it listens."""
    return ServerProcess(
        [sys.executable, "-c", SERVER.format(secret=SECRET, port=port)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        log=Path(tempfile.mkdtemp(prefix="bench-receiver-")) / "dashboard.log",
        ready=[uvicorn_ready(port)],
    ).start(timeout=20)


def webhook(i: int) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(
        {
            "run_id": "bench-run",
            "stage": "iteration",
            "iteration": i,
            "iterations": 1_000_000,
            "final_email": {
                "subject": f"Iteration {i}: a note for Alex",
                "body": "Hi Alex,\n\nA paragraph about data quality.\n\nA call next week?",
                "citations": ["Customer Job", "Process for Quality Validation", "Product Feature"],
            },
            "node_scores": {f"node-{k}": (k * 37 % 100) / 100 for k in range(16)},
            "metrics": {"mean": 0.61, "max": 0.83},
            "created_at": "2025-10-12T13:00:15Z",
        }
    ).encode()
    headers = sign_headers(SECRET, f"msg_bench_{i}", body) | {
        "Content-Type": "application/json",
        "X-CoDreamer-Stage": "iteration",
    }
    return body, headers


def summarise(latencies_s: list[float], wall_s: float) -> dict[str, Any]:
    ms = sorted(x * 1000 for x in latencies_s)
    q = statistics.quantiles(ms, n=100)
    return {
        "requests": len(ms),
        "requests_per_s": round(len(ms) / wall_s, 1),
        "p50_ms": round(q[49], 3),
        "p99_ms": round(q[98], 3),
        "max_ms": round(ms[-1], 3),
    }


Request = tuple[str, str, bytes | None, dict[str, str]]


def _worker(base_url: str, requests: list[Request], expect: int, deadline: float) -> list[float]:
    latencies: list[float] = []
    with httpx.Client(base_url=base_url, timeout=10) as client:  # one keep-alive connection
        for method, path, body, headers in requests:
            t0 = time.perf_counter()
            r = client.request(method, path, content=body, headers=headers)
            latencies.append(time.perf_counter() - t0)
            if r.status_code != expect:
                raise RuntimeError(f"{method} {path} answered {r.status_code}: {r.text[:200]}")
            if t0 > deadline:
                break
    return latencies


def run_phase(
    base_url: str, requests: list[Request], concurrency: int, expect: int = 200
) -> dict[str, Any]:
    """Send `requests` over `concurrency` connections (round-robin split), timed together."""
    shares = [requests[i::concurrency] for i in range(concurrency)]
    start = time.perf_counter()
    deadline = start + MAX_SECONDS_PER_PHASE
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(lambda share: _worker(base_url, share, expect, deadline), shares))
    wall = time.perf_counter() - start
    out = summarise([x for r in results for x in r], wall)
    out["connections"] = concurrency
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3000, help="requests per phase (max 100000)")
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument(
        "--concurrency",
        type=int,
        default=4,
        help="keep-alive connections for the throughput phase (1-16)",
    )
    args = parser.parse_args()
    n = max(100, min(args.n, 100_000))
    conc = max(1, min(args.concurrency, 16))

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(port)
    try:
        total = args.warmup + 2 * n
        signed = [webhook(i) for i in range(total)]
        hooks: list[Request] = [("POST", "/api/final-email", b, h) for b, h in signed]
        bare: list[Request] = [("GET", "/healthz", None, {})] * n
        run_phase(base, bare[: args.warmup], 1)
        run_phase(base, hooks[: args.warmup], 1)
        # Latency: one request at a time. Throughput: `conc` connections at once.
        bare_seq = run_phase(base, bare, 1)
        hooks_seq = run_phase(base, hooks[args.warmup : args.warmup + n], 1)
        bare_conc = run_phase(base, bare, conc)
        hooks_conc = run_phase(base, hooks[args.warmup + n :], conc)
        final_iteration = httpx.get(f"{base}/api/state").json()["latest"]["iteration"]
        if final_iteration != total - 1:
            raise RuntimeError(f"not every webhook was applied (last: {final_iteration})")
    finally:
        proc.stop(grace_s=10)

    receiver_result = {"sequential": hooks_seq, "concurrent": hooks_conc}
    bare_result = {"sequential": bare_seq, "concurrent": bare_conc}
    receiver_result["target_met"] = (  # type: ignore[assignment]
        hooks_conc["requests_per_s"] >= 1000 and max(hooks_conc["p99_ms"], hooks_seq["p99_ms"]) < 20
    )
    print(
        json.dumps(
            {
                "benchmark": "dashboard webhook receiver",
                "transport": "httpx keep-alive on loopback; sequential = 1 connection, "
                f"concurrent = {conc} connections",
                "server": "uvicorn (subprocess), access log off",
                "python": platform.python_version(),
                "load_avg_1m": round(os.getloadavg()[0], 2),
                "cpus": os.cpu_count(),
                "receiver_post_api_final_email_signed": receiver_result,
                "bare_get_healthz": bare_result,
                "target": {"requests_per_s": ">= 1000", "p99_ms": "< 20"},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
