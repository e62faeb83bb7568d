"""A test hook: show every event of a run to a gate and wait for its answer.

With `CODREAMER_TEST_EVENT_GATE` set to a Unix socket path, a run sends each event
it has just written to events.jsonl (with the run id and its pid) to that socket, one
JSON line, and waits for any line back before it goes on. A test listening there
decides when a run may continue: it can kill, interrupt or simply hold a run at an
exact event instead of racing it with sleeps or polling. Unset (always, outside
tests), nothing is sent and nothing waits.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Any


class EventGate:
    def __init__(self, path: Path, run_id: str) -> None:
        self.path = path
        self.run_id = run_id
        self._lock = threading.Lock()  # one exchange at a time on one connection
        self._sock: socket.socket | None = None
        self._reader: Any = None

    def passes(self, event: dict[str, Any]) -> None:
        """Block until the gate answers this event. A gate that is gone lets everything
        through: the hook may slow a test's run down, never break one."""
        line = json.dumps({"run_id": self.run_id, "pid": os.getpid(), "event": event}) + "\n"
        with self._lock:
            try:
                if self._sock is None:
                    self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    self._sock.connect(str(self.path))
                    self._reader = self._sock.makefile("rb")
                self._sock.sendall(line.encode())
                if not self._reader.readline():
                    self._close()
            except OSError:
                self._close()

    def _close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = None
        self._reader = None
