"""Real API servers for the e2e tests: `python -m codreamer.cli api` on a free
loopback port, in its own working directory with its own copy of data/."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
KG = SHARED / "kg"
sys.path.insert(0, str(REPO / "tests" / "api"))

from webhook_receiver import Receiver, free_port  # noqa: E402

__all__ = ["ApiServer", "Receiver", "free_port", "api_server", "KG", "REPO", "SHARED"]

TERMINAL = {"succeeded", "failed", "cancelled", "interrupted"}

# A short webhook schedule (about 20 s in all) so failure scenarios finish in seconds.
FAST_SCHEDULE = ",".join(["0", "0.2", "0.3", "0.5"] + ["1"] * 18)
FAST_WEBHOOKS = {
    "CODREAMER_WEBHOOK_SCHEDULE": FAST_SCHEDULE,
    "CODREAMER_WEBHOOK_TIMEOUT": "1",
    "CODREAMER_WEBHOOK_DRAIN_TIMEOUT": "20",
}


class PortTaken(RuntimeError):
    pass


class ApiServer:
    def __init__(self, home: Path, env: dict[str, str] | None = None, port: int | None = None):
        self.home = home
        self.port = port or free_port()
        self.results = home / "results"
        self.data = home / "data"
        if not self.data.exists():
            shutil.copytree(REPO / "data", self.data)
        self.env = {
            **{
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("CODREAMER_", "FRONTEND", "OPENAI_", "ART_"))
            },
            "CODREAMER_RESULTS_DIR": str(self.results),
            "CODREAMER_DATA_DIR": str(self.data),
            "PYTHONPATH": str(REPO),
            **FAST_WEBHOOKS,
            **(env or {}),
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = home / f"api-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> ApiServer:
        # A free port can be taken by another process between the probe and the bind
        # (many test runs share this machine): try a new one then, a few times.
        for _ in range(3):
            try:
                return self._start(timeout)
            except PortTaken:
                self.port = free_port()
        return self._start(timeout)

    def _start(self, timeout: float) -> ApiServer:
        # Its own process group, so a kill reaches only what this test started.
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "codreamer.cli",
                "api",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
            ],
            cwd=self.home,
            env=self.env,
            stdout=open(self.log, "ab"),  # noqa: SIM115 - the child keeps it
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log = self.log.read_text()[-3000:]
                if "already in use" in log:
                    self.log.write_text("")
                    raise PortTaken(self.port)
                raise RuntimeError(f"API exited ({self.proc.returncode}):\n{log}")
            try:
                # 503: up, but a part is not ready (a test may break it on purpose).
                if httpx.get(self.url + "/healthz", timeout=1).status_code in (200, 503):
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"API did not start:\n{self.log.read_text()[-3000:]}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(15)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.kill(signal.SIGTERM)
        # Run processes follow their parent within a fraction of a second; make sure.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            st = self.status(run_id)
            if st["status"] in until:
                return st
            time.sleep(0.1)
        raise AssertionError(f"run {run_id} still {st['status']} after {timeout}s")

    def run_dir(self, run_id: str) -> Path:
        return self.results / "runs" / run_id

    def webhook_rows(self, run_id: str) -> list[dict[str, Any]]:
        path = self.run_dir(run_id) / "webhooks.jsonl"
        return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


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
