"""The test side of codreamer/store/gate.py: a Unix socket that every event of a run
(started with `gate.env`) passes through. A test decides, per event, whether the run
goes on at once or is held there until the test releases it, and waits for held
events on a queue: runs are stopped, killed or interrupted at an exact event, never
by racing them with sleeps or polling."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Predicate = Callable[[str, dict[str, Any]], bool]


@dataclass
class Held:
    run_id: str
    pid: int
    event: dict[str, Any]
    _conn: socket.socket = field(repr=False)
    # Set when the run's connection closes: the process has exited (or was killed).
    gone: threading.Event = field(default_factory=threading.Event, repr=False)
    released: bool = False

    def wait_gone(self, timeout: float = 30.0) -> None:
        assert self.gone.wait(timeout), f"pid {self.pid} still running after {timeout}s"

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        with contextlib.suppress(OSError):  # the run was killed meanwhile
            self._conn.sendall(b"go\n")


class EventGate:
    """`hold(pred)`: an event for which `pred(run_id, event)` is true waits there until
    released; every other event goes on at once. A predicate may keep state (hold
    only the first match)."""

    def __init__(self) -> None:
        # Unix socket paths are short (108 bytes): not under pytest's tmp_path.
        self._dir = Path(tempfile.mkdtemp(prefix="gate-", dir="/tmp"))
        self.path = self._dir / "s"
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        self._server.listen(64)
        self._lock = threading.Lock()
        self._pred: Predicate | None = None
        self._held: queue.Queue[Held] = queue.Queue()
        self._waiting: list[Held] = []
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def env(self) -> dict[str, str]:
        return {"CODREAMER_TEST_EVENT_GATE": str(self.path)}

    def hold(self, pred: Predicate | None) -> None:
        with self._lock:
            self._pred = pred

    def next_held(self, timeout: float = 60.0) -> Held:
        """The next event held at the gate (raises AssertionError after `timeout`)."""
        while True:
            try:
                held = self._held.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no event held at the gate within {timeout}s") from None
            if not held.released:
                return held

    def release_waiting(self) -> None:
        """Let every run held now go on (the predicate stays)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
        for h in waiting:
            h.release()

    def release_all(self) -> None:
        """Stop holding; let every held run go on."""
        self.hold(None)
        self.release_waiting()

    def close(self) -> None:
        self._closed = True
        self.release_all()
        self._server.close()
        with contextlib.suppress(OSError):
            self.path.unlink()
            self._dir.rmdir()

    def __enter__(self) -> EventGate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        # A run killed at the gate resets its connection: that ends this thread.
        gone = threading.Event()
        with conn, conn.makefile("rb") as lines, contextlib.suppress(OSError):
            for line in lines:
                msg = json.loads(line)
                held = Held(msg["run_id"], msg["pid"], msg["event"], conn, gone)
                with self._lock:
                    self.seen.append((held.run_id, held.event))
                    hold = self._pred is not None and self._pred(held.run_id, held.event)
                    if hold:
                        self._waiting.append(held)
                if hold:
                    self._held.put(held)
                else:
                    held.release()
        gone.set()
