"""Hostile input against a real API: memory and reply sizes (issue 10).

Starts `codreamer api` on 127.0.0.1 in a subprocess with the default limits
(2 MB bodies) and sends, for each kind of hostile body below, 8 requests of
about 2 MB at once, while a thread samples the API's resident memory
(/proc/<pid>/status VmRSS; the run processes are separate and idle). The
baseline, measured in the same run: the API's RSS once started, and its peak
under the same 8-at-once pattern of small valid reads. Growth = hostile peak -
RSS once started (no warm-up is subtracted).

Kinds: 100,000 unknown edge targets (the issue's 15 MB amplifier), 100,000 nodes
that are not objects (over the node cap), 19,000 duplicate ids, 19,000 nodes with
unknown keys, 1,000,000-deep nesting, a lone surrogate at the end, invalid
UTF-8 at the end, a bare node list, a 500,000-character node id with edges to
unknown targets, a 2 MB feedback field, and a body over the limit.

Then request heads and Hosts (issue 23), each sent on a raw socket so the client
never buffers or refuses what it sends: one 70 MB header and one 200 MB header
(sent until the server answers and closes), 8 at once of 1 MB headers, 5,000
small headers, a head sent a byte at a time past the head timeout (one request,
slow), and a foreign Host, alone and with a matching Origin, on a read, a run
start and an empty cross-site POST. They run first, on the API as started, and
their RSS is sampled on its own.

    uv run python benchmarks/bench_hostile.py [--rounds 2]

Prints one JSON object. Targets: API RSS growth under 100 MB during the hostile
rounds; every answer a 4xx no larger than its request; during the head and Host
cases, every answer a 4xx of at most 4 KiB and RSS growth under 50 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import select
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import _common  # noqa: F401 - puts the checkout on sys.path, for tests.support
import httpx

from tests.support.api import ApiServer

TARGET_RSS_GROWTH_MB = 100.0
TARGET_HEAD_RSS_GROWTH_MB = 50.0
MAX_HEAD_REPLY_BYTES = 4096
CONCURRENT = 8
LIMIT = 2_000_000


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _base_graph() -> list[dict[str, Any]]:
    return [
        {"id": "Customer Job", "content": "Validates synthetic data quality.",
         "edge": [{"target_id": "Product Feature", "relationship": "is solved by"}]},
        {"id": "Product Feature", "content": "An integrated feedback system.", "edge": []},
    ]  # fmt: skip


def _fill(make: Callable[[int], bytes], size: int = LIMIT - 2000) -> bytes:
    """The largest body `make(n)` builds under `size` bytes (n found by doubling)."""
    lo, hi = 1, 2
    while len(make(hi)) < size:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if len(make(mid)) < size else (lo, mid)
    return make(lo)


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def hostile_bodies() -> dict[str, tuple[str, bytes]]:
    def unknown_targets(n: int) -> bytes:
        g = _base_graph()
        g[0]["edge"] += [{"target": f"g{i:x}"} for i in range(n)]
        return _dumps({"graph": g})

    def not_objects(n: int) -> bytes:
        return _dumps({"graph": _base_graph() + [7] * n})

    def duplicate_ids(n: int) -> bytes:  # within the 20,000-node cap
        node = {"id": "Customer Job", "content": "c" * 80}
        return _dumps({"graph": _base_graph() + [node] * n})

    def unknown_keys(n: int) -> bytes:  # within the node cap, many keys each
        keys = {f"k{j:x}": 0 for j in range(n)}
        return _dumps({"graph": _base_graph() + [{"id": f"n{i}", **keys} for i in range(19_000)]})

    def long_id(n: int) -> bytes:
        g = _base_graph()
        g.append({"id": "N" * 500_000, "edge": [{"target": f"u{i}"} for i in range(n)]})
        return _dumps({"graph": g})

    def surrogate_at_end(n: int) -> bytes:
        g = _base_graph() + [{"id": f"n{i}", "content": "ok"} for i in range(n)]
        g.append({"id": "late", "content": "\udfff"})
        return _dumps({"graph": g})

    def bad_utf8_at_end(n: int) -> bytes:
        return _dumps({"graph": _base_graph(), "pad": "x" * n})[:-2] + b'\xff"}'

    def bare_list(n: int) -> bytes:
        return _dumps(_base_graph() + [{"id": f"n{i}"} for i in range(n)])

    def feedback_field(n: int) -> bytes:
        return _dumps({"type": "human_preference", "value": 1, "trajectory_id": "t" * n})

    deep = b'{"graph":' + b"[" * (LIMIT - 2000) + b"}"
    over = _dumps({"graph": _base_graph(), "pad": "x" * (LIMIT + 10)})
    return {
        "100k_unknown_edge_targets": ("/learn-loop", _fill(unknown_targets)),
        "nodes_that_are_not_objects": ("/learn-loop", _fill(not_objects)),
        "duplicate_ids": ("/learn-loop", _fill(duplicate_ids)),
        "unknown_node_keys": ("/learn-loop", _fill(unknown_keys)),
        "500k_char_id_unknown_targets": ("/learn-loop", _fill(long_id)),
        "deep_nesting": ("/learn-loop", deep),
        "lone_surrogate_at_end": ("/learn-loop", _fill(surrogate_at_end)),
        "invalid_utf8_at_end": ("/learn-loop", _fill(bad_utf8_at_end)),
        "bare_node_list": ("/learn-loop", _fill(bare_list)),
        "2mb_feedback_field": ("/feedback", _fill(feedback_field)),
        "over_the_limit": ("/learn-loop", over),
    }


class Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self._done = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, _rss_mb(self.pid))
            time.sleep(0.01)

    def stop(self) -> float:
        self._done.set()
        self.join()
        return max(self.peak, _rss_mb(self.pid))


def _burst(url: str, path: str, body: bytes | None) -> list[tuple[int, int]]:
    def one(_: int) -> tuple[int, int]:
        with httpx.Client(timeout=120) as c:
            if body is None:
                r = c.get(url + path)
            else:
                r = c.post(url + path, content=body, headers={"Content-Type": "application/json"})
            return r.status_code, len(r.content)

    with ThreadPoolExecutor(CONCURRENT) as pool:
        return list(pool.map(one, range(CONCURRENT)))


def _raw(
    port: int,
    head: bytes,
    *,
    chunk: int = 1 << 20,
    total: int = 0,
    pause: float = 0.0,
    body: bytes = b"",
) -> tuple[int, int, float]:
    """Send `head` (then `total` more bytes of one header value, in `chunk`s) on a raw
    socket until the server answers or closes; return (status, reply bytes, seconds).
    Status 0: closed without an answer."""
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:

        def answered() -> bool:  # stop sending once the server has answered
            return bool(select.select([sock], [], [], 0)[0])

        try:
            if pause:
                for b in head:
                    if answered():
                        break
                    sock.sendall(bytes([b]))
                    time.sleep(pause)
            else:
                sock.sendall(head)
            filler = b"a" * chunk
            sent = 0
            while sent < total and not answered():
                sock.sendall(filler)
                sent += chunk
            if not answered():
                sock.sendall(b"\r\n\r\n" if total else b"")
                if body:
                    sock.sendall(body)
        except OSError:
            pass  # the server answered and closed while we were still sending
        reply = b""
        try:
            while len(reply) < 1 << 20:
                data = sock.recv(65536)
                if not data:
                    break
                reply += data
        except OSError:
            pass
    seconds = time.perf_counter() - t0
    try:
        status = int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0
    except (IndexError, ValueError):
        status = 0
    return status, len(reply), seconds


def head_cases(port: int) -> dict[str, Callable[[], list[tuple[int, int, float]]]]:
    host = f"127.0.0.1:{port}"
    evil = "rebind.attacker.example"

    def req(method: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
        headers = {**headers, "Connection": "close"}  # so every reply ends with EOF
        lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items())]
        if method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n").encode()

    def big_header(mb: int) -> Callable[[], list[tuple[int, int, float]]]:
        head = req("GET", "/healthz", {"Host": host}) + b"X-Big: "
        return lambda: [_raw(port, head, total=mb << 20)]

    def many_1mb() -> list[tuple[int, int, float]]:
        head = req("GET", "/healthz", {"Host": host}) + b"X-Big: "
        with ThreadPoolExecutor(CONCURRENT) as pool:
            return list(pool.map(lambda _: _raw(port, head, total=1 << 20), range(CONCURRENT)))

    def many_headers() -> list[tuple[int, int, float]]:
        headers = {"Host": host, **{f"X-H{i}": "v" for i in range(5000)}}
        return [_raw(port, req("GET", "/healthz", headers) + b"\r\n")]

    def slow_head() -> list[tuple[int, int, float]]:
        # One byte every 0.25 s: the head never completes within the head timeout.
        head = req("GET", "/healthz", {"Host": host, "X-Pad": "p" * 200})
        return [_raw(port, head, pause=0.25)]

    run = json.dumps({"iterations": 1, "depth": 2}).encode()

    def foreign(method: str, path: str, headers: dict[str, str], body: bytes = b"") -> Any:
        return lambda: [_raw(port, req(method, path, headers, body) + b"\r\n", body=body)]

    json_ct = {"Content-Type": "application/json"}
    return {
        "one_70mb_header": big_header(70),
        "one_200mb_header": big_header(200),
        "8_at_once_1mb_header": many_1mb,
        "5000_headers": many_headers,
        "slow_head_byte_by_byte": slow_head,
        "foreign_host_read": foreign("GET", "/runs", {"Host": evil}),
        "foreign_host_and_origin_start_run": foreign(
            "POST", "/learn-loop", {"Host": evil, "Origin": f"http://{evil}", **json_ct}, run
        ),
        "empty_cross_site_post": foreign(
            "POST", "/learn-loop", {"Host": host, "Origin": f"http://{evil}",
                                    "Content-Type": "text/plain"}
        ),
        "foreign_host_healthz": foreign("GET", "/healthz", {"Host": evil}),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2, help="hostile bursts per kind")
    args = ap.parse_args()

    bodies = hostile_bodies()
    home = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    api = ApiServer(home).start(timeout=60)
    proc, url, port = api.proc, api.url, api.port
    assert proc is not None
    try:
        # The baseline: the API as started, then the same bursts with benign reads.
        time.sleep(0.5)
        before = _rss_mb(proc.pid)
        sampler = Sampler(proc.pid)
        sampler.start()
        for _ in range(args.rounds):
            _burst(url, "/scenarios", None)
            _burst(url, "/runs", None)
        benign_peak = sampler.stop()

        # Request heads and Hosts first, on the API as started: their growth is measured
        # from there, not from a heap the hostile bodies have already grown.
        head_before = _rss_mb(proc.pid)
        sampler = Sampler(proc.pid)
        sampler.start()
        heads: dict[str, Any] = {}
        for name, case in head_cases(port).items():
            got = case()
            heads[name] = {
                "statuses": sorted({s for s, _, _ in got}),
                "max_reply_bytes": max(n for _, n, _ in got),
                "max_seconds": round(max(t for _, _, t in got), 2),
                "all_4xx": all(400 <= s < 500 for s, _, _ in got),
                "reply_bounded": all(n <= MAX_HEAD_REPLY_BYTES for _, n, _ in got),
            }
        head_peak = sampler.stop()
        kinds: dict[str, Any] = {}
        sampler = Sampler(proc.pid)
        sampler.start()
        t0 = time.perf_counter()
        for name, (path, body) in bodies.items():
            results: list[tuple[int, int]] = []
            k0 = time.perf_counter()
            for _ in range(args.rounds):
                results += _burst(url, path, body)
            kinds[name] = {
                "request_bytes": len(body),
                "statuses": sorted({s for s, _ in results}),
                "max_reply_bytes": max(n for _, n in results),
                "all_4xx": all(400 <= s < 500 for s, _ in results),
                "reply_le_request": all(n <= len(body) for _, n in results),
                "seconds": round(time.perf_counter() - k0, 2),
            }
        hostile_peak = sampler.stop()
        elapsed = time.perf_counter() - t0

        alive = httpx.get(url + "/healthz", timeout=5).status_code == 200
        runs_dir = home / "results" / "runs"
        written = sorted(p.name for p in runs_dir.iterdir()) if runs_dir.exists() else []
        head_growth = head_peak - head_before
    finally:
        api.stop(grace_s=10)
        shutil.rmtree(home, ignore_errors=True)

    growth = hostile_peak - before
    result = {
        "benchmark": "bench_hostile",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "concurrent_requests": CONCURRENT,
        "rounds_per_kind": args.rounds,
        "requests": CONCURRENT * args.rounds * len(bodies),
        "seconds": round(elapsed, 1),
        "rss_mb": {
            "before": round(before, 1),
            "benign_burst_peak": round(benign_peak, 1),
            "hostile_peak": round(hostile_peak, 1),
            "hostile_growth": round(growth, 1),
        },
        "kinds": kinds,
        "heads_and_hosts": {
            "rss_mb": {
                "before": round(head_before, 1),
                "peak": round(head_peak, 1),
                "growth": round(head_growth, 1),
            },
            "cases": heads,
        },
        "api_alive_after": alive,
        "run_dirs_written": len(written),
        "targets": {
            "rss_growth_mb_under": TARGET_RSS_GROWTH_MB,
            "met_rss": growth < TARGET_RSS_GROWTH_MB,
            "met_every_reply_4xx_and_le_request": all(
                k["all_4xx"] and k["reply_le_request"] for k in kinds.values()
            ),
            "heads_rss_growth_mb_under": TARGET_HEAD_RSS_GROWTH_MB,
            "met_heads_rss": head_growth < TARGET_HEAD_RSS_GROWTH_MB,
            "met_heads_every_reply_bounded_4xx": all(
                h["all_4xx"] and h["reply_bounded"] for h in heads.values()
            ),
        },
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
