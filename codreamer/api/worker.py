"""The body of one run's process: the learn-loop beside its webhook sender.

Runs execute in their own process so NumPy training never holds the
API process's GIL. The process:

- holds an exclusive `flock` on the run's lock file for its whole life, so any
  other process can tell whether the run is really being executed (a free lock
  on a `running` run means the process died: the run is `interrupted`);
- exits on its own when the API process that started it dies (SIGKILL gives
  no chance to clean up), so a run never goes on unsupervised;
- checks for the run's cancel file at every step boundary;
- waits, bounded, for the webhook outbox to drain before exiting.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from codreamer.config import Settings
from codreamer.loop.artifacts import RunPaths

DEFAULT_RUNNER = "codreamer.loop.learn_loop:run_learn_loop"
PARENT_POLL_S = 0.25


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


def load_runner(spec: str) -> Callable[..., Any]:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _exit_with_api(api_pid: int) -> None:
    """Die when the API process dies. The run process's parent is the fork server,
    which exits when the API does; either sign is enough."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent or not _pid_alive(api_pid):
                # No cleanup: the run's files are consistent at every instant, and
                # the next API marks the run interrupted.
                os._exit(70)

    threading.Thread(target=watch, name="api-watch", daemon=True).start()


def run_in_child(run_dir: str, settings: Settings, runner: str, api_pid: int) -> None:
    """Process target: execute (or resume) the run in `run_dir`."""
    _exit_with_api(api_pid)
    paths = RunPaths(Path(run_dir))
    with run_lock(paths) as held:
        if held is None:
            return  # another process already executes this run
        execute(paths, settings, runner)


def execute(paths: RunPaths, settings: Settings, runner: str = DEFAULT_RUNNER) -> Any:
    """Run the loop with webhook delivery beside it (also usable in-process)."""
    from codreamer.api.webhooks import WebhookSender
    from codreamer.loop.events import EventLog

    run = load_runner(runner)
    # The sender's delivered/failed events go through the loop's own EventLog, so
    # `seq` stays equal to the line number with two writers.
    events = EventLog(paths.events)
    sender = WebhookSender(paths, settings, emit=events.emit_event)
    sender.requeue_pending()
    try:
        result = run(
            paths,
            on_webhook=sender.send,
            should_stop=paths.cancel_request.exists,  # a stat per step boundary
            settings=settings,
            event_log=events,
        )
    finally:
        sender.close(settings.webhook_drain_timeout_s)
    return result
