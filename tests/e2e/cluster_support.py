"""A real cluster for the celery-mode tests and the benchmark: Debian's redis-server on
a free loopback port, `codreamer worker` processes and `codreamer api` replicas, each
in its own working directory, all sharing one results directory."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from api_support import REPO, ApiServer, free_port

# The marks of every cluster e2e module: skipped without the `celery` extra, unless
# CI asks for it (then a missing extra fails instead of skipping).
CELERY_E2E = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        importlib.util.find_spec("celery") is None
        and not os.environ.get("CODREAMER_TEST_REQUIRE_CELERY"),
        reason="needs the `celery` extra (uv sync --extra celery)",
    ),
]


REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


class RedisServer:
    def __init__(self, home: Path) -> None:
        self.port = free_port()
        self.home = home
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> RedisServer:
        self.home.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.home),
                "--protected-mode",
                "no",
            ],  # fmt: skip
            stdout=open(self.home / "redis.log", "ab"),  # noqa: SIM115 - the child keeps it
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        import redis

        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError):
                if client.ping():
                    return self
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def client(self) -> Any:
        import redis

        return redis.Redis.from_url(self.url, decode_responses=True)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def cluster_env(redis: RedisServer, results: Path, **extra: str) -> dict[str, str]:
    return {
        "CODREAMER_BROKER_URL": redis.url,
        "CODREAMER_RESULTS_DIR": str(results),
        **extra,
    }


class Worker:
    """`codreamer worker` in its own directory and process group."""

    def __init__(self, home: Path, env: dict[str, str], concurrency: int = 1) -> None:
        self.home = home
        self.home.mkdir(parents=True, exist_ok=True)
        data = home / "data"
        if not data.exists():
            shutil.copytree(REPO / "data", data)
        self.env = {
            **{
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("CODREAMER_", "FRONTEND", "OPENAI_", "ART_"))
            },
            "CODREAMER_DATA_DIR": str(data),
            "PYTHONPATH": str(REPO),
            **env,
        }
        self.concurrency = concurrency
        self.log = home / "worker.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 60.0) -> Worker:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "codreamer.cli",
                "worker",
                "--concurrency",
                str(self.concurrency),
                "--loglevel",
                "info",
            ],  # fmt: skip
            cwd=self.home,
            env=self.env,
            stdout=open(self.log, "ab"),  # noqa: SIM115 - the child keeps it
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker exited:\n{self.log.read_text()[-3000:]}")
            if " ready." in self.log.read_text(errors="replace"):
                return self
            time.sleep(0.1)
        raise RuntimeError(f"worker not ready:\n{self.log.read_text()[-3000:]}")

    def owns(self, pid: int) -> bool:
        """True if `pid` is this worker or one of its pool processes."""
        try:
            return os.getpgid(pid) == self.pid
        except ProcessLookupError:
            return False

    def members(self) -> set[int]:
        """The pids of this worker's process group now (its pool and companion), for
        checks made after it has stopped."""
        found = set()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if os.getpgid(int(entry.name)) == self.pid:
                        found.add(int(entry.name))
        return found

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once (a machine lost)."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(15)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
        self.kill()


def replica(home: Path, env: dict[str, str], results: Path, port: int | None = None) -> ApiServer:
    server = ApiServer(home, env, port=port)
    server.results = results
    return server
