"""`codreamer worker` (celery mode, DESIGN §6): a Celery worker for runs, a thread-pool
companion for webhook deliveries, and the store-wide services in its main process.
Imported only when CODREAMER_BROKER_URL is set."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from celery.signals import setup_logging, worker_ready, worker_shutdown

from codreamer.config import Settings
from codreamer.logs import configure_logging
from codreamer.runs.celery.app import make_celery
from codreamer.runs.celery.services import ClusterServices
from codreamer.runs.lifeline import exit_with_parent

log = logging.getLogger(__name__)

# Threads for the delivery tasks of one worker: each attempt is one bounded POST.
WEBHOOK_THREADS = 8


def run_worker(
    settings: Settings,
    *,
    concurrency: int | None,
    queues: str | None,
    loglevel: str,
    services: bool = True,
) -> None:
    """`codreamer worker`: a Celery worker (prefork) for runs, plus, in its main
    process, the store-wide webhook dispatcher and the lease reaper, so pending
    events and orphaned runs go on even with no API replica running.

    The webhook queue (consumed by default) is served by a companion worker on a
    thread pool, a child of this one: a prefork slot busy with a run for minutes
    must not hold back a POST, and deliveries are I/O. `--queues` naming only the
    webhook queue starts just that thread-pool worker."""
    _log_through_loguru(settings)
    hooks_q = settings.celery_webhook_queue
    wanted = [q.strip() for q in (queues or f"{settings.celery_queue},{hooks_q}").split(",")]
    run_queues = [q for q in wanted if q and q != hooks_q]
    if not run_queues:
        _run_webhook_worker(settings, concurrency, loglevel, services)
        return

    # Deferred, and only here: the loop is imported once, before the pool forks, so
    # every run starts warm; the webhook companion never runs one and skips it.
    import codreamer.loop.learn_loop  # noqa: F401

    app = make_celery(settings)
    supervisor = None
    if hooks_q in wanted:
        supervisor = CompanionSupervisor(hooks_q, loglevel, settings.webhook_timeout_s + 5)
        supervisor.start()

    def _stop_companions() -> None:
        if supervisor is not None:
            supervisor.stop()

    _with_services(settings, app, services, on_stop=_stop_companions)

    argv = [
        "worker",
        "--pool=prefork",
        f"--loglevel={loglevel}",
        f"--queues={','.join(run_queues)}",
        f"--hostname=codreamer-{os.getpid()}@%h",
        "--without-gossip",
        "--without-mingle",  # cancel goes through the store and Redis, not revoke lists
    ]
    if concurrency:
        argv.append(f"--concurrency={concurrency}")
    app.worker_main(argv)


def _log_through_loguru(settings: Settings) -> None:
    """Celery leaves logging alone once `setup_logging` has a receiver: its loggers
    (and its tasks') then go to loguru, configured from the settings (DESIGN §9)."""
    configure_logging(settings.logging)

    @setup_logging.connect(weak=False)
    def _keep(**_: Any) -> None:
        configure_logging(settings.logging)


def _with_services(
    settings: Settings, app: Any, services: bool, on_stop: Callable[[], None] | None = None
) -> None:
    """Start the store-wide services (webhook dispatcher, lease reaper) when the worker is
    ready, if asked, and stop them (then `on_stop`) when it shuts down."""
    started: list[ClusterServices] = []

    @worker_ready.connect(weak=False)
    def _start(**_: Any) -> None:
        if services:
            started.append(ClusterServices(settings, app).start())

    @worker_shutdown.connect(weak=False)
    def _stop(**_: Any) -> None:
        for s in started:
            s.stop()
        if on_stop is not None:
            on_stop()


class CompanionSupervisor:
    """Keeps the webhook companion running: when it exits (a Redis outage can end a
    thread-pool worker with an "Unrecoverable error"), it is started again, after a
    delay that grows to RESTART_MAX_S while it keeps dying at once. Without this, one
    outage stopped every webhook delivery until someone restarted the worker."""

    RESTART_MIN_S = 0.5
    RESTART_MAX_S = 30.0
    HEALTHY_AFTER_S = 60.0  # up this long: the next exit starts from the short delay

    def __init__(self, queue: str, loglevel: str, stop_timeout_s: float) -> None:
        self.queue = queue
        self.loglevel = loglevel
        self.stop_timeout_s = stop_timeout_s
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._watch, name="companion", daemon=True)

    def start(self) -> CompanionSupervisor:
        self.proc = _start_companion(self.queue, self.loglevel)
        self._thread.start()
        return self

    def _watch(self) -> None:
        delay = self.RESTART_MIN_S
        while not self._stopping.is_set():
            proc = self.proc
            assert proc is not None
            started = time.monotonic()
            code = proc.wait()
            if self._stopping.is_set():
                return
            if time.monotonic() - started > self.HEALTHY_AFTER_S:
                delay = self.RESTART_MIN_S
            log.warning("webhook companion exited (%s); restarting in %.1fs", code, delay)
            if self._stopping.wait(delay):
                return
            delay = min(delay * 2, self.RESTART_MAX_S)
            with self._lock:
                if self._stopping.is_set():
                    return
                self.proc = _start_companion(self.queue, self.loglevel)
                self.restarts += 1

    def stop(self) -> None:
        with self._lock:
            self._stopping.set()
            proc = self.proc
        if proc is None:
            return
        proc.terminate()  # a warm shutdown: attempts in flight finish
        try:
            proc.wait(self.stop_timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()


def _start_companion(queue: str, loglevel: str) -> subprocess.Popen[bytes]:
    """The thread-pool worker for the webhook queue, in this worker's process group
    (killed with it) and watching it (exits if this process dies alone)."""
    argv = [sys.executable, "-m", "codreamer.cli", "worker", "--queues", queue]
    argv += ["--loglevel", loglevel, "--companion"]
    return subprocess.Popen(argv)


def _run_webhook_worker(
    settings: Settings, concurrency: int | None, loglevel: str, services: bool
) -> None:
    _log_through_loguru(settings)
    app = make_celery(settings)
    if not services:
        exit_with_parent()  # a companion never outlives the worker that started it
    _with_services(settings, app, services)

    app.worker_main(
        [
            "worker",
            "--pool=threads",
            f"--concurrency={concurrency or WEBHOOK_THREADS}",
            f"--loglevel={loglevel}",
            f"--queues={settings.celery_webhook_queue}",
            f"--hostname=codreamer-webhooks-{os.getpid()}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
    )
