"""Real API servers for the e2e tests and benchmarks: `python -m codreamer.cli api` on
a free loopback port, in its own working directory with its own copy of data/."""

from __future__ import annotations

import json
import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.support.env import clean_env
from tests.support.paths import DATA, KG
from tests.support.server import (
    ServerExited,
    ServerProcess,
    free_port,
    uvicorn_command,
    uvicorn_ready,
)

TERMINAL = {"succeeded", "failed", "cancelled", "interrupted"}

# A short webhook schedule (about 20 s in all) so failure scenarios finish in seconds.
FAST_SCHEDULE = ",".join(["0", "0.2", "0.3", "0.5"] + ["1"] * 18)
FAST_WEBHOOKS = {
    "CODREAMER_WEBHOOK_SCHEDULE": FAST_SCHEDULE,
    "CODREAMER_WEBHOOK_TIMEOUT": "1",
    "CODREAMER_WEBHOOK_DRAIN_TIMEOUT": "20",
}


class ApiServer(ServerProcess):
    """`codreamer api` with results in `home/results` (or `results`) and a copy of the
    sample data in `home/data`; `env` on top of a clean environment."""

    def __init__(
        self,
        home: Path,
        env: dict[str, str] | None = None,
        port: int | None = None,
        results: Path | None = None,
    ):
        self.home = home
        self.port = port or free_port()
        self.results = results or home / "results"
        self.data = home / "data"
        if not self.data.exists():
            shutil.copytree(DATA, self.data)
        super().__init__(
            [],
            cwd=home,
            env=clean_env(
                **{
                    "CODREAMER_RESULTS_DIR": str(self.results),
                    "CODREAMER_DATA_DIR": str(self.data),
                    **FAST_WEBHOOKS,
                    **(env or {}),  # the test's settings win
                }
            ),
            log=home / f"api-{self.port}.log",
            ready=[],
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> ApiServer:
        # A free port can be taken by another process between the probe and the bind
        # (many test runs share this machine): try a new one then, a few times.
        for attempt in range(4):
            self.argv = uvicorn_command(
                "codreamer.cli", "api", "--host", "127.0.0.1", "--port", str(self.port),
                "--log-level", "warning",
            )  # fmt: skip
            self.ready = [uvicorn_ready(self.port)]
            self.log = self.home / f"api-{self.port}.log"
            try:
                super().start(timeout)
                return self
            except ServerExited as exc:
                if "already in use" not in exc.tail or attempt == 3:
                    raise
                self.port = free_port()
        raise AssertionError("unreachable")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """`sig` to the API process alone (its runs are left to notice), then wait."""
        if self.running():
            assert self.proc is not None
            self.proc.send_signal(sig)
            self.proc.wait(15)

    # -- conveniences --------------------------------------------------------
    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=10, **kw)

    def post_run(self, body: dict[str, Any], **kw: Any) -> dict[str, Any]:
        r = httpx.post(self.url + "/learn-loop", json=body, timeout=10, **kw)
        assert r.status_code == 202, r.text
        return r.json()  # type: ignore[no-any-return]

    def status(self, run_id: str) -> dict[str, Any]:
        r = httpx.get(f"{self.url}/runs/{run_id}", timeout=10)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    def wait(
        self, run_id: str, timeout: float = 120.0, until: set[str] = TERMINAL
    ) -> dict[str, Any]:
        """The run's status once it is in `until`. A run that ends is followed on its
        event stream, which the API closes when the run has ended: woken by the run's
        own events, not by polling. Only a wait for a live status (`running`) polls."""
        if until <= TERMINAL:
            self.follow(run_id, timeout)
            st = self.status(run_id)
            assert st["status"] in until, f"run {run_id} ended {st['status']}, not {until}"
            return st
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            st = self.status(run_id)
            if st["status"] in until:
                return st
            time.sleep(0.1)
        raise AssertionError(f"run {run_id} still {st['status']} after {timeout}s")

    def follow(self, run_id: str, timeout: float = 120.0) -> list[dict[str, Any]]:
        """The run's events, read from its Server-Sent Events stream to the stream's end."""
        return follow(f"{self.url}/runs/{run_id}/events", timeout)

    def run_dir(self, run_id: str) -> Path:
        return self.results / "runs" / run_id

    def webhook_rows(self, run_id: str) -> list[dict[str, Any]]:
        path = self.run_dir(run_id) / "webhooks.jsonl"
        return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def follow_stream(url: str, timeout: float = 180.0) -> tuple[list[dict[str, Any]], Any]:
    """Read a Server-Sent Events stream (a run's, an agent job's) to its `end` event:
    the events in order, and the end's data. The API pings a quiet stream, so the read
    timeout only bounds a stalled one; `timeout` bounds the whole."""
    deadline = time.monotonic() + timeout
    events: list[dict[str, Any]] = []
    with httpx.stream("GET", url, timeout=timeout) as r:
        assert r.status_code == 200, r.read()[:500]
        name = None
        for line in r.iter_lines():
            assert time.monotonic() < deadline, f"{url} still going after {timeout}s"
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and name != "ping":
                data = json.loads(line.split(":", 1)[1])
                if name == "end":
                    return events, data
                events.append(data)
    raise AssertionError(f"{url}: the stream ended without an end event")


def follow(url: str, timeout: float = 180.0) -> list[dict[str, Any]]:
    """The events of a Server-Sent Events stream, read to its `end` event."""
    return follow_stream(url, timeout)[0]


@contextmanager
def api_server(home: Path, env: dict[str, str] | None = None) -> Iterator[ApiServer]:
    server = ApiServer(home, env).start()
    try:
        yield server
    finally:
        server.stop()


def weave_request() -> dict[str, Any]:
    return json.loads((KG / "weave-feedback-5.request.json").read_text())


def weave_graph_variant(i: int) -> list[dict[str, Any]]:
    """weave-feedback-5 with node contents made unique to variant i."""
    graph = json.loads((KG / "weave-feedback-5.json").read_text())
    nodes = graph["nodes"] if isinstance(graph, dict) else graph
    for n in nodes:
        n["content"] = f"[variant {i}] {n.get('content', '')}"
    return nodes
