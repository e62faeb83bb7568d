"""The body of one run's process (local executor): `execute_run` under the run's lock.

Runs execute in their own process so NumPy training never holds the
API process's GIL. The process:

- holds an exclusive `flock` on the run's lock file for its whole life, so any
  other process can tell whether the run is really being executed (a free lock
  on a `running` run means the process died: the run is `interrupted`);
- exits on its own when the API process that started it dies (SIGKILL gives
  no chance to clean up), so a run never goes on unsupervised;
- checks for the run's cancel file at every step boundary;
- hands undelivered webhook events to the API's dispatcher when it exits.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from codreamer.config import Settings
from codreamer.logs import configure_logging
from codreamer.runs.execute import execute_run
from codreamer.runs.lifeline import exit_with_parent, pid_alive
from codreamer.store.paths import RunPaths


@contextlib.contextmanager
def run_lock(paths: RunPaths, *, blocking: bool = False) -> Iterator[IO[str] | None]:
    """Hold the run's lock; yields None (without blocking) when another process holds it."""
    paths.dir.mkdir(parents=True, exist_ok=True)
    fh = open(paths.lock, "a+", encoding="utf-8")  # noqa: SIM115 - held across the yield
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield None
            return
        try:
            yield fh
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    finally:
        fh.close()


def is_run_alive(paths: RunPaths) -> bool:
    """True while some process holds the run's lock (i.e. is executing it)."""
    if not paths.lock.exists():
        return False
    with run_lock(paths) as held:
        return held is None


def run_in_child(run_dir: str, settings: Settings, api_pid: int) -> None:
    """Process target: execute (or resume) the run in `run_dir`. The run process's
    parent is the fork server, which exits when the API does; either sign is enough."""
    exit_with_parent(lambda: pid_alive(api_pid))
    # A fresh interpreter (the fork server's child): its own logging, same settings.
    configure_logging(settings.logging)
    paths = RunPaths(Path(run_dir))
    with run_lock(paths) as held:
        if held is None:
            return  # another process already executes this run
        # A short drain: events due now get their first attempt from here; anything
        # still pending after it goes on from the API's store-wide dispatcher.
        execute_run(paths, settings, drain_s=min(2.0, settings.webhook_drain_timeout_s))
