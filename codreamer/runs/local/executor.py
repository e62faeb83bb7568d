"""The local executor: a bounded pool of run processes, a bounded queue, cancel, resume.

- At most `max_concurrent_runs` runs execute at once, each in its own
  process (see `process.py`); up to `max_queued_runs` more wait as `queued`
  (in memory, and `queued` in their meta.json). Beyond that: QueueFullError.
  Run processes come from a multiprocessing fork server with the loop preloaded.
- Cancel: a queued run is taken off the queue and marked `cancelled` at once; a
  running one gets a cancel file that the loop sees at its next step boundary.
- Start-up recovery: a run whose meta says `running` or `queued` while no
  process holds its lock was left by a dead API process: it becomes
  `interrupted`, and `resume` queues it again (the loop resumes from its files).
- Webhooks: the executor runs the store-wide dispatcher (pending events of every
  run go on with their schedule); a claim per event is an flock.
- One API process owns a results directory (the in-memory queue is per process);
  several replicas need the celery executor.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing as mp
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import forkserver
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from codreamer.config import Settings
from codreamer.errors import QueueFullError, RunStateError
from codreamer.models import utc_now_iso
from codreamer.runs.execute import execute_run
from codreamer.runs.local.process import is_run_alive, run_in_child, run_lock
from codreamer.store.events import EventLog
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths, check_run_id
from codreamer.store.status import LIVE_STATUSES, RESUMABLE_STATUSES
from codreamer.webhooks.claims import EventClaims
from codreamer.webhooks.dispatcher import Dispatcher

log = logging.getLogger(__name__)

REAP_INTERVAL_S = 0.1
ORPHAN_CHECK_S = 1.0
PRELOAD = (
    "codreamer.runs.local.process",
    "codreamer.runs.execute",
    "codreamer.webhooks.dispatcher",
    "codreamer.loop.learn_loop",
    "httpx",
)


@dataclass
class _Active:
    process: BaseProcess | _ThreadRun
    paths: RunPaths


class _ThreadRun:
    """A run on a thread of the API process, shaped like a Process. Only for measuring
    what the GIL does to API latency (CODREAMER_RUN_EXECUTOR=thread); it cannot be
    stopped on shutdown and dies with the API."""

    def __init__(self, run_dir: str, settings: Settings) -> None:
        self.exitcode: int | None = None
        self._thread = threading.Thread(target=self._main, args=(run_dir, settings), daemon=True)

    def _main(self, run_dir: str, settings: Settings) -> None:
        paths = RunPaths(Path(run_dir))
        try:
            with run_lock(paths) as held:
                if held is not None:
                    execute_run(paths, settings)
            self.exitcode = 0
        except BaseException:
            self.exitcode = 1
            raise

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def terminate(self) -> None:
        pass

    kill = terminate


class LocalExecutor:
    """The Executor (runs/executors.py) of one API process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # forkserver: each run still gets a fresh process of its own (isolation, no
        # shared GIL with the API), but forked from a server that has already imported
        # NumPy and the loop, so a run starts in milliseconds instead of seconds.
        self._ctx = mp.get_context("forkserver")
        self._ctx.set_forkserver_preload(list(PRELOAD))
        self._cond = threading.Condition()
        self._queue: deque[str] = deque()
        self._reserved = 0
        self._active: dict[str, _Active] = {}
        self._thread: threading.Thread | None = None
        self._closing = False
        # Runs another process still held at start-up (an orphan of a dead API about to
        # exit): marked interrupted as soon as their lock frees.
        self._orphans: list[RunPaths] = []
        self._next_orphan_check = 0.0
        self._dispatcher: Dispatcher | None = None

    # -- paths ---------------------------------------------------------------
    def paths(self, run_id: str) -> RunPaths:
        """The run's paths; InvalidRunIdError for a malformed id, RunNotFoundError if absent."""
        return RunPaths.existing(self.settings.runs_dir, run_id)

    def new_paths(self, run_id: str) -> RunPaths:
        return RunPaths.for_run(self.settings.runs_dir, run_id)

    def claims(self) -> EventClaims | None:
        return None  # an flock per event (webhooks/claims.py): one machine

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> list[str]:
        """Recover runs a dead process left behind, then start scheduling, and the
        store-wide webhook dispatcher: pending events of every run in the store,
        whoever produced them, go on with their schedule from here (DESIGN §7)."""
        interrupted = self.recover()
        # Start the fork server (and its imports) now, not on the first run.
        threading.Thread(target=_warm_forkserver, name="forkserver-warmup", daemon=True).start()
        self._thread = threading.Thread(target=self._schedule, name="run-scheduler", daemon=True)
        self._thread.start()
        self._dispatcher = Dispatcher.for_store(self.settings.runs_dir, self.settings).start()
        return interrupted

    def recover(self) -> list[str]:
        runs_dir = self.settings.runs_dir
        if not runs_dir.is_dir():
            return []
        out = []
        for d in sorted(runs_dir.iterdir()):
            paths = RunPaths(d)
            try:
                check_run_id(d.name)
                status = read_meta(paths).status
            except Exception:  # not a run directory, or unreadable: leave it alone
                continue
            if status not in LIVE_STATUSES:
                continue
            if is_run_alive(paths):
                self._orphans.append(paths)
                continue
            update_meta(paths, status="interrupted")
            EventLog(paths.events).emit("run_interrupted", previous_status=status)
            out.append(d.name)
        if out:
            log.warning("marked %d run(s) interrupted: %s", len(out), ", ".join(out))
        return out

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop scheduling; stop running processes; their runs become `interrupted`."""
        with self._cond:
            self._closing = True
            queued, self._queue = list(self._queue), deque()
            active = dict(self._active)
            self._cond.notify_all()
        for item in active.values():
            item.process.terminate()
        for run_id, item in active.items():
            item.process.join(timeout)
            if item.process.is_alive():
                item.process.kill()
                item.process.join(1)
            self._mark_interrupted(item.paths, "running")
            self._active.pop(run_id, None)
        for run_id in queued:
            self._mark_interrupted(self.new_paths(run_id), "queued")
        if self._dispatcher is not None:
            self._dispatcher.close()

    def _mark_interrupted(self, paths: RunPaths, previous: str) -> None:
        with contextlib.suppress(Exception):
            if read_meta(paths).status in LIVE_STATUSES:
                update_meta(paths, status="interrupted")
                EventLog(paths.events).emit("run_interrupted", previous_status=previous)

    # -- submitting ----------------------------------------------------------
    def submit(self, run_id: str, create: Callable[[], Any]) -> int:
        """Reserve a place, let `create` write the run's files, queue it.

        Nothing is written when the queue is full. Returns the queue position
        (0: starts now).
        """
        with self._cond:
            self._check_capacity()
            self._reserved += 1
        try:
            create()
        except BaseException:
            with self._cond:
                self._reserved -= 1
            raise
        with self._cond:
            self._reserved -= 1
            return self._enqueue(run_id)

    def _check_capacity(self) -> None:
        held = len(self._active) + len(self._queue) + self._reserved
        capacity = self.settings.max_concurrent_runs + self.settings.max_queued_runs
        if self._closing or held >= capacity:
            raise QueueFullError(self.settings.queue_retry_after_s)

    def _enqueue(self, run_id: str) -> int:
        self._queue.append(run_id)
        self._cond.notify_all()
        free_slots = max(0, self.settings.max_concurrent_runs - len(self._active))
        return max(0, len(self._queue) - free_slots)

    def queue_position(self, run_id: str) -> int | None:
        with self._cond:
            if run_id not in self._queue:
                return None
            return list(self._queue).index(run_id) + 1

    def is_active(self, run_id: str) -> bool:
        with self._cond:
            return run_id in self._active

    # -- cancel / resume -----------------------------------------------------
    def cancel(self, run_id: str) -> str:
        """Returns the status the run now has: `cancelled`, or `cancelling` while it stops."""
        paths = self.paths(run_id)
        with self._cond:
            if run_id in self._queue:
                self._queue.remove(run_id)
                self._finish_cancelled(paths)
                return "cancelled"
            active = run_id in self._active
        status = read_meta(paths).status
        # The status decides, not the process: a finished run's process may still be
        # draining its webhook outbox for a few seconds.
        if status in LIVE_STATUSES and (active or is_run_alive(paths)):
            paths.cancel_request.touch()
            return "cancelling"
        if status in LIVE_STATUSES or status == "interrupted":
            self._finish_cancelled(paths)  # nothing executes it: cancelled at once
            return "cancelled"
        raise RunStateError(
            f"run {run_id} is {status}; only a queued, running or interrupted run can be cancelled"
        )

    def _finish_cancelled(self, paths: RunPaths) -> None:
        update_meta(paths, status="cancelled", finished_at=utc_now_iso())
        EventLog(paths.events).emit("run_cancelled")

    def broker_problem(self) -> str | None:
        return None  # local runs need no broker

    def resume(self, run_id: str) -> int:
        """Queue an interrupted, failed or cancelled run again; returns its queue position."""
        paths = self.paths(run_id)
        with self._cond:
            status = read_meta(paths).status
            if run_id in self._queue or status in LIVE_STATUSES:
                raise RunStateError(f"run {run_id} is already {status}")
            # Before the liveness probe, which opens the run's lock file: a succeeded run
            # on a read-only store is a 409, not a file error.
            if status not in RESUMABLE_STATUSES:
                raise RunStateError(
                    f"run {run_id} is {status}; only an interrupted, failed or cancelled run "
                    "can be resumed"
                )
            if run_id in self._active or is_run_alive(paths):
                raise RunStateError(
                    f"run {run_id} is {status} but its process is still finishing; "
                    "retry in a few seconds"
                )
            self._check_capacity()
            paths.cancel_request.unlink(missing_ok=True)
            update_meta(paths, status="queued", finished_at=None)
            EventLog(paths.events).emit("run_queued", resumed=True)
            return self._enqueue(run_id)

    # -- the scheduler thread ------------------------------------------------
    def _schedule(self) -> None:
        while True:
            with self._cond:
                if self._closing:
                    return
                self._reap()
                self._check_orphans()
                while self._queue and len(self._active) < self.settings.max_concurrent_runs:
                    self._launch(self._queue.popleft())
                self._cond.wait(REAP_INTERVAL_S)

    def _check_orphans(self) -> None:
        now = time.monotonic()
        if not self._orphans or now < self._next_orphan_check:
            return
        self._next_orphan_check = now + ORPHAN_CHECK_S
        for paths in list(self._orphans):
            if paths.run_id in self._active or is_run_alive(paths):
                continue
            self._orphans.remove(paths)
            if paths.run_id not in self._queue:
                self._mark_interrupted(paths, "running")

    def _launch(self, run_id: str) -> None:
        paths = self.new_paths(run_id)
        process: BaseProcess | _ThreadRun
        if self.settings.run_executor == "thread":
            process = _ThreadRun(str(paths.dir), self.settings)
        else:
            process = self._ctx.Process(
                target=run_in_child,
                args=(str(paths.dir), self.settings, os.getpid()),
                name=f"run-{run_id}",
                daemon=True,
            )
        try:
            process.start()
        except Exception as exc:  # e.g. out of processes: the run fails, the API goes on
            log.exception("could not start run %s", run_id)
            update_meta(paths, status="failed", error=f"could not start: {exc}")
            return
        self._active[run_id] = _Active(process, paths)

    def _reap(self) -> None:
        for run_id, item in list(self._active.items()):
            if item.process.exitcode is None:
                continue
            item.process.join(0)
            del self._active[run_id]
            code = item.process.exitcode
            # A process that died without finishing its run (a crash, OOM kill)
            # leaves `running`: record it as failed, with the exit code.
            with contextlib.suppress(Exception):
                if read_meta(item.paths).status in LIVE_STATUSES:
                    msg = f"run process exited with code {code}"
                    update_meta(item.paths, status="failed", finished_at=utc_now_iso(), error=msg)
                    EventLog(item.paths.events).emit("run_failed", error=msg)

    def snapshot(self) -> dict[str, Any]:
        with self._cond:
            return {
                "active": sorted(self._active),
                "queued": list(self._queue),
                "max_concurrent_runs": self.settings.max_concurrent_runs,
                "max_queued_runs": self.settings.max_queued_runs,
            }


def _warm_forkserver() -> None:
    with contextlib.suppress(Exception):
        forkserver.ensure_running()
