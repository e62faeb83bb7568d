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
from pathlib import Path
from typing import Any

import pytest

from tests.support.api import ApiServer
from tests.support.env import clean_env
from tests.support.paths import DATA
from tests.support.server import ServerProcess, free_port

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


class RedisServer(ServerProcess):
    """No persistence: a restart on the same port is a fresh, empty broker."""

    def __init__(self, home: Path) -> None:
        self.port = free_port()
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        super().__init__(
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
                str(home),
                "--protected-mode",
                "no",
            ],  # fmt: skip
            cwd=home,
            env=dict(os.environ),
            log=home / "redis.log",
            ready=["Ready to accept connections"],
        )

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> RedisServer:
        super().start(timeout)
        return self

    def client(self) -> Any:
        import redis  # the `celery` extra

        return redis.Redis.from_url(self.url, decode_responses=True)

    def stop(
        self, sig: int = signal.SIGKILL, grace_s: float = 10.0, *, group: bool = False
    ) -> None:
        """SIGKILL by default: the broker lost, not shut down."""
        super().stop(sig, grace_s, group=group)


def cluster_env(redis: RedisServer, results: Path, **extra: str) -> dict[str, str]:
    return {
        "CODREAMER_BROKER_URL": redis.url,
        "CODREAMER_RESULTS_DIR": str(results),
        **extra,
    }


class Worker(ServerProcess):
    """`codreamer worker` in its own directory and process group; ready once `ready_lines`
    of Celery's "ready." lines are out (2: the run worker and its webhook companion)."""

    def __init__(
        self, home: Path, env: dict[str, str], concurrency: int = 1, ready_lines: int = 1
    ) -> None:
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        data = home / "data"
        if not data.exists():
            shutil.copytree(DATA, data)
        self.concurrency = concurrency
        super().__init__(
            [
                sys.executable,
                "-m",
                "codreamer.cli",
                "worker",
                "--concurrency",
                str(concurrency),
                "--loglevel",
                "info",
            ],  # fmt: skip
            cwd=home,
            env=clean_env(**{"CODREAMER_DATA_DIR": str(data), **env}),
            log=home / "worker.log",
            ready=[r" ready\."] * ready_lines,
        )

    def start(self, timeout: float = 60.0) -> Worker:
        super().start(timeout)
        return self

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
        if self.running():
            assert self.proc is not None
            self.kill_group()
            self.proc.wait(15)

    def stop(
        self, sig: int = signal.SIGTERM, grace_s: float = 10.0, *, group: bool = False
    ) -> None:
        """A warm shutdown; the group is killed only if the worker outlives `grace_s`
        (what it leaves behind after a clean exit is for the test to see)."""
        if not self.running():
            return
        if group:
            self.kill_group(sig)
        else:
            self.send(sig)
        assert self.proc is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(grace_s)
        self.kill()


def replica(home: Path, env: dict[str, str], results: Path, port: int | None = None) -> ApiServer:
    return ApiServer(home, env, port=port, results=results)
