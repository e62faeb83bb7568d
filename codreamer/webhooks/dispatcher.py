"""The dispatcher: delivers every pending outbox event when it falls due (DESIGN §7).

Two shapes, one code path:

- run-scoped (`Dispatcher.for_run`), inside the process executing a run: the
  loop's `enqueue` wakes it, so the first attempt goes out at once;
- store-wide (`Dispatcher.for_store`), in the API process (local mode), in every
  worker and replica (celery mode) and in `codreamer webhooks dispatch`: scans
  the results store for outboxes with events due, whoever produced them, so
  pending events go on with their schedule after any restart, by themselves.

Each event is attempted on its own thread of a small pool: a receiver that
hangs or fails one event never holds back another. Or, given `submit` (celery
mode), the dispatcher sends nothing itself: it hands each due event to `submit`,
which enqueues a delivery task (codreamer.runs.celery.webhook_tasks); the task makes the
attempt through the same claim on a worker. Every attempt goes through a
per-event claim (claims.py), so however many dispatchers (and redeliveries) work
the same outbox at once, each event is sent by one of them at a time and never
again once delivered; a claim dies with its holder, so no event is stranded.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from codreamer.config import Settings
from codreamer.models import WebhookPayload
from codreamer.store.paths import RUN_ID_RE, RunPaths
from codreamer.webhooks.attempt import AttemptOutcome, make_client, post_once
from codreamer.webhooks.claims import EventClaims, FileClaims
from codreamer.webhooks.envelope import make_signer, webhook_id_for
from codreamer.webhooks.outbox import Outbox, OutboxEvent, read_outbox
from codreamer.webhooks.sender import EmitFn, Step, announce, emit_when_not_live, send_if_due

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

# Hands a due event to whoever delivers it instead of this dispatcher (celery mode:
# enqueue a delivery task). Called on every pass while the event is due: it dedupes.
SubmitFn = Callable[[RunPaths, OutboxEvent], None]
POLL_S = 0.25
STORE_POLL_S = 0.5
MAX_PARALLEL = 8


class Dispatcher:
    def __init__(
        self,
        settings: Settings,
        runs: Callable[[], Iterator[RunPaths]],
        *,
        url: str | None,
        claims: EventClaims | None = None,
        emit_for: Callable[[RunPaths], EmitFn | None] | None = None,
        poll_s: float = POLL_S,
        submit: SubmitFn | None = None,
    ) -> None:
        self.settings = settings
        self.submit = submit
        self.url = url
        self.schedule = settings.webhooks.schedule
        self._runs = runs
        self._claims = claims or FileClaims()
        self._emit_for = emit_for or (lambda paths: None)
        self._poll_s = poll_s
        self._signer = make_signer(settings.webhook_secret)
        self._client: httpx.Client | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._inflight: dict[str, set[str]] = {}  # run id -> webhook ids being attempted
        # run id -> ((mtime_ns, size) of its outbox, next due time or None): an outbox
        # that has not changed and has nothing due is not read again.
        self._seen: dict[str, tuple[tuple[int, int], float | None]] = {}
        self.delivered = 0
        self.gave_up = 0

    # -- construction ----------------------------------------------------------
    @classmethod
    def for_run(
        cls,
        paths: RunPaths,
        settings: Settings,
        *,
        emit: EmitFn | None = None,
        url: str | None = None,
        claims: EventClaims | None = None,
        submit: SubmitFn | None = None,
    ) -> RunDispatcher:
        return RunDispatcher(paths, settings, emit=emit, url=url, claims=claims, submit=submit)

    @classmethod
    def for_store(
        cls,
        runs_dir: Path,
        settings: Settings,
        *,
        url: str | None = None,
        claims: EventClaims | None = None,
        submit: SubmitFn | None = None,
    ) -> Dispatcher:
        def runs() -> Iterator[RunPaths]:
            with contextlib.suppress(OSError):
                for entry in sorted(runs_dir.iterdir()):
                    if RUN_ID_RE.match(entry.name):
                        yield RunPaths(entry)

        return cls(
            settings,
            runs,
            url=url if url is not None else settings.frontend_url,
            claims=claims,
            emit_for=emit_when_not_live,
            poll_s=STORE_POLL_S,
            submit=submit,
        )

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> Dispatcher:
        if self._client is None and self.url and self.submit is None:
            # The HTTP stack now, on the caller's thread: imported later on a pool thread
            # it takes seconds while a training loop holds the GIL.
            self._client = make_client(self.settings.webhook_timeout_s)
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="webhooks", daemon=True)
            self._thread.start()
        return self

    def wake(self) -> None:
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.dispatch_due()
            except Exception:  # a bug here must never take a run or the API down
                log.exception("webhook dispatcher")
            self._wake.wait(self._poll_s)
            self._wake.clear()

    def close(self, drain_s: float = 0.0) -> int:
        """Go on until nothing is due within `drain_s` seconds, then stop. Attempts in
        flight finish (each is bounded by the webhook timeout); what is left stays
        pending in the outboxes for the next dispatcher. Returns events left pending."""
        deadline = time.time() + max(0.0, drain_s)
        while self._thread is not None and time.time() < deadline:
            if not self._busy_before(deadline):
                break
            time.sleep(0.05)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(self.settings.webhook_timeout_s + 5)
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        if self._client is not None:
            self._client.close()
        return self.pending()

    def pending(self) -> int:
        n = 0
        for paths in self._runs():
            n += sum(1 for ev in read_outbox(paths.webhooks).values() if ev.status == "pending")
        return n

    def _busy_before(self, deadline: float) -> bool:
        with self._lock:
            if any(self._inflight.values()):
                return True
        if not self.url or self.submit is not None:
            return False  # submitted events are the tasks' business, not this process's
        for paths in self._runs():
            for ev in read_outbox(paths.webhooks).values():
                if ev.status == "pending" and (ev.next_at or 0.0) <= deadline:
                    return True
        return False

    # -- one pass --------------------------------------------------------------
    def dispatch_due(self) -> int:
        """Start an attempt for every event due now; returns how many were started."""
        if not self.url:
            return 0
        started = 0
        now = time.time()
        for paths in self._runs():
            started += self._dispatch_run(paths, now)
        return started

    def _dispatch_run(self, paths: RunPaths, now: float) -> int:
        run_id = paths.run_id
        try:
            st = paths.webhooks.stat()
        except OSError:
            return 0
        key = (st.st_mtime_ns, st.st_size)
        # What is in flight is taken *before* the outbox is read: an attempt records its
        # outcome before it leaves the in-flight set, so an event missing from this set
        # is settled in the read below (the claim makes it safe anyway; this spares the
        # second attempt).
        with self._lock:
            inflight = set(self._inflight.get(run_id, ()))
        seen = self._seen.get(run_id)
        if seen is not None and seen[0] == key and not inflight:
            next_due = seen[1]
            if next_due is None or next_due > now:
                return 0
        pending = [ev for ev in read_outbox(paths.webhooks).values() if ev.status == "pending"]
        due = [ev for ev in pending if ev.due(now) and ev.webhook_id not in inflight]
        later = [ev.next_at or now for ev in pending if ev.webhook_id not in inflight]
        self._seen[run_id] = (key, min(later) if later else None)
        if self.submit is not None:
            for ev in due:
                self.submit(paths, ev)
            return len(due)
        for ev in due:
            with self._lock:
                self._inflight.setdefault(run_id, set()).add(ev.webhook_id)
            self._executor().submit(self._attempt, paths, ev.webhook_id)
        return len(due)

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(MAX_PARALLEL, thread_name_prefix="webhook")
        return self._pool

    def _attempt(self, paths: RunPaths, webhook_id: str) -> None:
        step: Step | None = None
        try:
            step = send_if_due(self._claims, Outbox(paths, self.schedule), webhook_id, self._post)
            if step.kind == "sent":
                self._announce(paths, step)
        except Exception:
            log.exception("webhook %s", webhook_id)
        finally:
            with self._lock:
                self._inflight.get(paths.run_id, set()).discard(webhook_id)
        # Look again at once only after an attempt of ours: an event another sender
        # holds is looked at on the next poll, not in a tight loop while its POST is out.
        if step is not None and step.kind == "sent":
            self._wake.set()

    def _post(self, ev: OutboxEvent) -> AttemptOutcome:
        assert self.url is not None and self._client is not None  # made by start()
        return post_once(self._client, self.url, ev.webhook_id, ev.stage, ev.body, self._signer)

    def _announce(self, paths: RunPaths, step: Step) -> None:
        if step.status == "delivered":
            self.delivered += 1
        elif step.status == "gave_up":
            self.gave_up += 1
        if step.status != "pending":
            announce(self._emit_for(paths), step)


class RunDispatcher(Dispatcher):
    """The dispatcher inside a run's process: the loop's `enqueue` hands it events."""

    def __init__(
        self,
        paths: RunPaths,
        settings: Settings,
        *,
        emit: EmitFn | None,
        url: str | None,
        claims: EventClaims | None,
        submit: SubmitFn | None = None,
    ) -> None:
        super().__init__(
            settings,
            lambda: iter([paths]),
            url=url if url is not None else settings.frontend_url,
            claims=claims,
            emit_for=lambda _: emit,
            submit=submit,
        )
        self.paths = paths
        self.outbox = Outbox(paths, self.schedule)
        self._known = set(read_outbox(paths.webhooks))

    def enqueue(self, payload: WebhookPayload) -> str:
        """Record the event in the outbox and wake the dispatcher; never blocks on the
        network. Without a receiver the event is recorded as skipped, so `codreamer
        webhooks redeliver --url` can send it later."""
        wid = self.outbox.enqueue(payload, known=self._known)
        if wid is None:
            return webhook_id_for(payload)
        self._known.add(wid)
        if not self.url:
            ev = read_outbox(self.paths.webhooks)[wid]
            self.outbox.skip(ev, "no FRONTEND_URL")
        else:
            self.start()
            self.wake()
        return wid

    __call__ = enqueue
