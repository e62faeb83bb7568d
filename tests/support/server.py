"""Real servers on free loopback ports, for tests and benchmarks (DESIGN §10: tests use
real servers on loopback).

- `serve_in_thread(app)`: an ASGI app under a real uvicorn in a background thread.
- `ServerProcess`: a command in its own process group and working directory, its
  output copied to a log file, ready when each line it must print has been printed.
- `uvicorn_command(module, *args)`: run a module that serves with uvicorn so that it
  prints uvicorn's "running on" line whatever its log level (see tests/support/ready.py).

Readiness is an event every time (uvicorn's own start-up, a line on a pipe), never a
sleep-and-retry against the port: a server is used the moment it can answer.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import uvicorn
from starlette.types import ASGIApp

# How much of a server's output an error message quotes.
TAIL_LINES = 40


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def uvicorn_ready(port: int) -> str:
    """The pattern of uvicorn's line once it listens on `port` (its lifespan started)."""
    return rf"Uvicorn running on https?://\S+:{port}\b"


def uvicorn_command(module: str, *args: str) -> list[str]:
    """`python -m module args…`, by way of tests/support/ready.py, which prints the
    `uvicorn_ready` line even when the command's log level hides uvicorn's own."""
    return [sys.executable, "-m", "tests.support.ready", module, *args]


class StartedServer(uvicorn.Server):
    """uvicorn's server, announcing the end of its start-up on an event."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.up = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.up.set()  # started, or failed to (then `started` stays False)


@contextmanager
def serve_in_thread(
    app: ASGIApp, port: int | None = None, start_timeout_s: float = 10.0, **options: Any
) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 while the block runs; yields its base URL. `options`
    go to uvicorn (e.g. `http=` from web.app.server_options)."""
    port = port or free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        # Open SSE streams (a browser tab) must not keep the server from stopping.
        timeout_graceful_shutdown=1,
        **options,
    )
    server = StartedServer(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    # A failed bind exits the thread (uvicorn calls sys.exit there): `up` is set either way.
    if not server.up.wait(start_timeout_s) or not server.started:
        server.should_exit = True
        raise RuntimeError(f"server on port {port} did not start within {start_timeout_s}s")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class ServerExited(RuntimeError):
    """The command ended before it was ready; `tail` is the end of its output."""

    def __init__(self, argv: Sequence[str], returncode: int | None, tail: str) -> None:
        super().__init__(f"{' '.join(argv[:4])}… exited ({returncode}) before ready:\n{tail}")
        self.tail = tail


class _Output:
    """One start's output: the patterns still awaited, the last lines, and whether the
    pipe has ended. Each start has its own, so a line or the end of a stopped start's
    output (its copier may still be draining) never counts for the next one."""

    def __init__(self, ready: Sequence[str]) -> None:
        self.waiting = [re.compile(p) for p in ready]
        self.ended = False
        self.tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self.changed = threading.Condition()  # notified on each match and at the end

    def line(self, line: str) -> None:
        self.tail.append(line)
        with self.changed:
            # One line satisfies one pattern: a pattern given twice waits for two lines.
            hit = next((p for p in self.waiting if p.search(line)), None)
            if hit is not None:
                self.waiting.remove(hit)
                self.changed.notify_all()

    def end(self) -> None:
        with self.changed:
            self.ended = True
            self.changed.notify_all()


class ServerProcess:
    """`argv` in `cwd` with exactly `env`, in its own process group (a kill reaches only
    what this test started). Ready once every pattern of `ready` has matched a line of
    its output; the output goes on into `log` after that. `start` again after `stop`
    to restart it."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        log: Path,
        ready: Sequence[str],
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env = env
        self.log = log
        self.ready = list(ready)
        self.proc: subprocess.Popen[bytes] | None = None
        self._out = _Output([])

    @property
    def pid(self) -> int:
        assert self.proc is not None, "not started"
        return self.proc.pid

    @property
    def tail(self) -> str:
        """The last lines of the latest start's output, for error messages."""
        return "".join(self._out.tail)

    def start(self, timeout: float = 60.0) -> ServerProcess:
        out = self._out = _Output(self.ready)
        self.proc = subprocess.Popen(
            self.argv,
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        threading.Thread(
            target=_copy,
            args=(self.proc.stdout, self.log, out),
            name=f"log-{self.proc.pid}",
            daemon=True,
        ).start()
        with out.changed:
            if not out.changed.wait_for(lambda: not out.waiting or out.ended, timeout):
                self.stop()
                raise RuntimeError(f"{self.argv[:4]} not ready within {timeout}s:\n{self.tail}")
            if out.waiting:
                self.proc.wait(10)
                raise ServerExited(self.argv, self.proc.returncode, self.tail)
        return self

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send(self, sig: int) -> None:
        """`sig` to the command itself (not its group)."""
        if self.running():
            assert self.proc is not None
            self.proc.send_signal(sig)

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """`sig` to every process of the group at once (a machine lost)."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, sig)

    def stop(
        self, sig: int = signal.SIGTERM, grace_s: float = 15.0, *, group: bool = False
    ) -> None:
        """`sig` (to the whole group if `group`: Ctrl-C in a terminal), up to `grace_s` to
        exit, then SIGKILL to whatever is left of the group (run processes follow their
        parent within a fraction of a second; make sure)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            if group:
                self.kill_group(sig)
            else:
                self.proc.send_signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(grace_s)
        self.kill_group()
        self.proc.wait(15)


def _copy(pipe: IO[bytes], log: Path, out: _Output) -> None:
    # Every process of the group shares the pipe: it ends when the last one exits.
    log.parent.mkdir(parents=True, exist_ok=True)
    with pipe, open(log, "ab") as sink:
        for raw in pipe:
            sink.write(raw)
            sink.flush()
            out.line(raw.decode(errors="replace"))
    out.end()
