"""Who may deliver a run's outbox right now: one holder per run at a time, so an
event is never attempted twice at once by two processes.

`FileLeases` (local mode) hold an `flock` on the run's outbox file itself (an
advisory lock: appends go on); the kernel drops it when the holder dies, however
it dies. Across machines `flock`
cannot be trusted (network file systems), so the celery mode uses leases in
Redis with a time-to-live instead (codreamer.runs.celery_leases).
"""

from __future__ import annotations

import contextlib
import fcntl
import threading
from typing import IO, Protocol

from codreamer.loop.artifacts import RunPaths


class OutboxLeases(Protocol):
    def acquire(self, paths: RunPaths) -> bool:
        """Take the run's lease without waiting; True if this holder has it now."""

    def release(self, paths: RunPaths) -> None: ...

    def renew(self) -> None:
        """Keep every held lease alive (called every poll)."""


class FileLeases:
    def __init__(self) -> None:
        self._held: dict[str, IO[str]] = {}
        self._lock = threading.Lock()

    def acquire(self, paths: RunPaths) -> bool:
        with self._lock:
            if paths.run_id in self._held:
                return True
            try:
                fh = open(paths.webhooks, "a", encoding="utf-8")  # noqa: SIM115 - held
            except OSError:
                return False
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                fh.close()
                return False
            self._held[paths.run_id] = fh
            return True

    def release(self, paths: RunPaths) -> None:
        with self._lock:
            fh = self._held.pop(paths.run_id, None)
        if fh is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
            fh.close()

    def renew(self) -> None:
        pass  # an flock lives as long as its holder
