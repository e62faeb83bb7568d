"""The celery executor's worker side (DESIGN §6): the Celery app, the run task, and
`codreamer worker`. Imported only when CODREAMER_BROKER_URL is set.

Celery's own mechanisms carry the run: late acks and reject-on-worker-lost (a
run whose worker process dies goes back to the queue), routing (`art` runs to a
GPU queue), revoke (a queued run that is cancelled). Webhook deliveries are tasks
too (webhook_tasks.py), on a queue of their own that a thread-pool companion of
`codreamer worker` consumes. Two things Celery cannot do
across machines are done with Redis: liveness (a run lease with a time-to-live,
renewed while the run executes) and the cluster-wide admission limit (see
cluster.py). A run task is idempotent: it executes nothing unless it takes the
run's lease, and resumes the run from its files when it does, so a task
delivered twice (a redelivery, a reaper's requeue) is harmless.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from codreamer.config import Settings, get_settings
from codreamer.logs import configure_logging
from codreamer.registry import POLICIES
from codreamer.runs.redis_leases import PREFIX, Lease, RedisEventClaims, run_lease_key
from codreamer.runs.webhook_tasks import (
    DELIVER_TASK,
    MAX_DELIVERY_RETRIES,
    WebhookTasks,
    deliver_task,
)
from codreamer.store.paths import RunPaths, check_run_id
from codreamer.store.status import TERMINAL_STATUSES

log = logging.getLogger(__name__)

RUN_TASK = "codreamer.run"
LIVE_SET = f"{PREFIX}:live"  # run ids admitted and not yet finished, cluster-wide


def cancel_key(run_id: str) -> str:
    return f"{PREFIX}:cancel:{run_id}"


def task_key(run_id: str) -> str:
    return f"{PREFIX}:task:{run_id}"


def queue_for(policy: str | None, settings: Settings) -> str:
    """A policy registered with queue "gpu" (art) runs on the GPU queue, every other
    run on the default one."""
    gpu = policy is not None and policy in POLICIES and POLICIES.get(policy).queue == "gpu"
    return settings.celery_gpu_queue if gpu else settings.celery_queue


def make_celery(settings: Settings) -> Any:
    from celery import Celery

    app = Celery("codreamer", broker=settings.broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,  # a message is acked when its run ends, not when it starts
        task_reject_on_worker_lost=True,  # a run whose process died goes back to the queue
        worker_prefetch_multiplier=1,  # a worker holds only the runs it executes
        task_ignore_result=True,  # run state lives in the shared results store
        task_default_queue=settings.celery_queue,
        task_routes={DELIVER_TASK: {"queue": settings.celery_webhook_queue}},
        broker_transport_options={"visibility_timeout": settings.celery_visibility_timeout_s},
        broker_connection_retry_on_startup=True,
        # Reconnect to Redis for as long as it takes (Celery's default gives up after
        # 100 attempts and the worker exits): an outage must end by itself.
        broker_connection_retry=True,
        broker_connection_max_retries=None,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )
    app.task(name=RUN_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)(run_task)
    # A delivery whose worker died mid-attempt goes back to the queue; its claim in
    # Redis expires, and the task (or a duplicate) finds the event as the outbox says.
    # The outbox's schedule bounds the attempts (100 at most); Celery's own default of
    # 3 retries would cut a chain short and leave the event to the safety net.
    app.task(
        name=DELIVER_TASK,
        bind=True,
        acks_late=True,
        reject_on_worker_lost=True,
        max_retries=MAX_DELIVERY_RETRIES,
    )(deliver_task)
    return app


@lru_cache(maxsize=4)
def _redis_for(url: str, pid: int) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


def redis_client(settings: Settings) -> Any:
    """One client per process (a forked child must not share its parent's sockets)."""
    assert settings.broker_url
    return _redis_for(settings.broker_url, os.getpid())


def run_task(task: Any, run_id: str) -> str:
    """Execute (or resume) a run on this worker, if no other worker holds it."""
    from codreamer.models import utc_now_iso
    from codreamer.runs.execute import execute_run
    from codreamer.runs.process import exit_with_parent
    from codreamer.store.events import EventLog
    from codreamer.store.meta import read_meta, update_meta

    settings = get_settings()
    client = redis_client(settings)
    paths = RunPaths.for_run(settings.runs_dir, check_run_id(run_id))
    if not paths.meta.exists():
        client.srem(LIVE_SET, run_id)
        return "missing"
    lease = Lease(client, run_lease_key(run_id), settings.run_lease_ttl_s)
    if not lease.acquire():
        return "leased"  # another worker executes it; this delivery was a duplicate
    stop_renewing = None
    try:
        status = read_meta(paths).status
        if status in TERMINAL_STATUSES:
            return str(status)
        if client.exists(cancel_key(run_id)):
            update_meta(paths, status="cancelled", finished_at=utc_now_iso())
            EventLog(paths.events).emit("run_cancelled")
            return "cancelled"
        # A prefork child whose worker was SIGKILLed must stop at once: its run now
        # belongs to the next worker, which resumes it from the files.
        exit_with_parent()
        stop_renewing = lease.keep_alive(on_lost=lambda: os._exit(75))

        def should_stop() -> bool:
            if paths.cancel_request.exists():
                return True
            try:
                return bool(client.exists(cancel_key(run_id)))
            except Exception:
                return False

        result = execute_run(
            paths,
            settings,
            should_stop=should_stop,
            drain_s=min(2.0, settings.webhook_drain_timeout_s),
            claims=RedisEventClaims(client, settings.webhook_timeout_s),
            # Its events go out as delivery tasks, enqueued as the run records them.
            submit_webhook=WebhookTasks(task.app, settings, client).submit,
        )
        return str(getattr(result, "status", "done"))
    finally:
        if stop_renewing is not None:
            stop_renewing.set()
        try:
            if read_meta(paths).status in TERMINAL_STATUSES:
                client.srem(LIVE_SET, run_id)
                client.delete(cancel_key(run_id))
        finally:
            lease.release()


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

    # Imported once here, before the pool forks: every run starts warm.
    import codreamer.loop.learn_loop  # noqa: F401
    import codreamer.runs.execute  # noqa: F401

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
    from celery.signals import setup_logging

    configure_logging(settings.logging)

    @setup_logging.connect(weak=False)
    def _keep(**_: Any) -> None:
        configure_logging(settings.logging)


def _with_services(
    settings: Settings, app: Any, services: bool, on_stop: Callable[[], None] | None = None
) -> None:
    """Start the store-wide services (webhook dispatcher, lease reaper) when the worker is
    ready, if asked, and stop them (then `on_stop`) when it shuts down."""
    from celery.signals import worker_ready, worker_shutdown

    from codreamer.runs.cluster import ClusterServices

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
        import threading

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
        import time

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
    from codreamer.runs.process import exit_with_parent

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
