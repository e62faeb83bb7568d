"""Webhook delivery (DESIGN §7): a per-run outbox, delivered in order beside the loop.

Used by the API's run processes and by the CLI's learn-loop, so nothing here
imports FastAPI. The outbox is the run's `webhooks.jsonl`:

    {"type": "enqueued",  "webhook_id", "stage", "iteration", "payload", "at"}
    {"type": "attempt",   "webhook_id", "attempt", "status_code", "error", "elapsed_ms",
                          "next_delay_s", "at"}
    {"type": "delivered", "webhook_id", "attempts", "status_code", "at"}
    {"type": "gave_up",   "webhook_id", "attempts", "reason", "at"}
    {"type": "skipped",   "webhook_id", "reason", "at"}        (no FRONTEND_URL)

The payload is stored at enqueue time, before any network I/O, so an event is
never lost: a process killed mid-delivery leaves an `enqueued` row without a
terminal row, which the next sender for that run (a resume) or
`codreamer webhooks redeliver` sends again with the same `webhook-id`.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from codreamer.api.envelope import (
    DeliveryResult,
    encode_payload,
    make_signer,
    now_iso,
    webhook_id_for,
)
from codreamer.config import Settings
from codreamer.loop.artifacts import RunPaths, append_jsonl, iter_jsonl
from codreamer.models import WebhookPayload

if TYPE_CHECKING:
    import httpx

__all__ = ["WebhookSender", "redeliver", "outbox_state", "webhook_id_for", "DeliveryResult"]

EmitFn = Callable[[dict[str, Any]], None]
TERMINAL_ROWS = ("delivered", "gave_up")


def outbox_state(paths: RunPaths) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """(enqueued rows by webhook id, in order; last terminal row type by webhook id)."""
    enqueued: dict[str, dict[str, Any]] = {}
    terminal: dict[str, str] = {}
    for row in iter_jsonl(paths.webhooks):
        wid = row.get("webhook_id")
        if not isinstance(wid, str):
            continue
        kind = row.get("type")
        if kind == "enqueued" and wid not in enqueued:
            enqueued[wid] = row
        elif kind in TERMINAL_ROWS and terminal.get(wid) != "delivered":
            terminal[wid] = kind
    return enqueued, terminal


def default_emitter(paths: RunPaths) -> EmitFn:
    """Append events to events.jsonl when no loop event log is passed in."""
    from codreamer.loop.artifacts import read_jsonl

    lock = threading.Lock()

    def emit(event: dict[str, Any]) -> None:
        with lock:
            seq = len(read_jsonl(paths.events)) + 1
            append_jsonl(paths.events, {"seq": seq, "at": now_iso(), **event})

    return emit


class WebhookSender:
    """Delivers a run's webhook events in order on one background thread.

    `send` never blocks on the network and never raises for delivery problems:
    the run goes on whatever the receiver does.
    """

    def __init__(
        self,
        paths: RunPaths,
        settings: Settings,
        *,
        url: str | None = None,
        emit: EmitFn | None = None,
    ) -> None:
        self.paths = paths
        self.settings = settings
        self.url = url if url is not None else settings.frontend_url
        self._emit = emit or default_emitter(paths)
        self._signer = make_signer(settings.webhook_secret)
        self._queue: queue.Queue[tuple[str, str, str] | None] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.results: list[DeliveryResult] = []
        _, terminal = outbox_state(paths)
        self._delivered = {wid for wid, kind in terminal.items() if kind == "delivered"}

    # -- producer side -------------------------------------------------------
    def send(self, payload: WebhookPayload) -> str:
        """Record the event in the outbox and queue it; returns its webhook id."""
        wid = webhook_id_for(payload)
        if wid in self._delivered:  # a resumed run re-announcing an event already delivered
            return wid
        body = encode_payload(payload)
        append_jsonl(
            self.paths.webhooks,
            {
                "type": "enqueued",
                "webhook_id": wid,
                "stage": payload.stage,
                "iteration": payload.iteration,
                "payload": json.loads(body),
                "at": now_iso(),
            },
        )
        self._put(wid, payload.stage, body)
        return wid

    __call__ = send  # usable directly as run_learn_loop(on_webhook=sender)

    def requeue_pending(self) -> int:
        """Queue outbox events with no terminal row (a process died mid-delivery)."""
        enqueued, terminal = outbox_state(self.paths)
        n = 0
        for wid, row in enqueued.items():
            if wid not in terminal:
                self._put(wid, str(row.get("stage", "final")), encode_payload(row["payload"]))
                n += 1
        return n

    def _put(self, wid: str, stage: str, body: str) -> None:
        if not self.url:
            append_jsonl(
                self.paths.webhooks,
                {
                    "type": "skipped",
                    "webhook_id": wid,
                    "reason": "no FRONTEND_URL",
                    "at": now_iso(),
                },
            )
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._worker, name=f"webhooks-{self.paths.run_id}", daemon=True
                )
                self._thread.start()
        self._queue.put((wid, stage, body))

    # -- consumer side -------------------------------------------------------
    def _worker(self) -> None:
        from codreamer.api.delivery import make_client  # the HTTP stack, only once needed

        with make_client(self.settings) as client:
            while True:
                item = self._queue.get()
                try:
                    if item is None:
                        return
                    if not self._stop.is_set():
                        self._deliver_one(client, *item)
                finally:
                    self._queue.task_done()

    def _deliver_one(self, client: httpx.Client, wid: str, stage: str, body: str) -> None:
        from codreamer.api.delivery import deliver

        assert self.url is not None
        try:
            result = deliver(
                client,
                self.url,
                wid,
                stage,
                body,
                self.settings,
                lambda row: append_jsonl(self.paths.webhooks, row),
                self._stop,
                self._signer,
            )
        except Exception as exc:  # a bug here must never take the run down
            result = DeliveryResult(wid, False, 0, None, f"{type(exc).__name__}: {exc}")
        self.results.append(result)
        iteration = _iteration_of(wid)
        if result.delivered:
            self._delivered.add(wid)
            append_jsonl(
                self.paths.webhooks,
                {
                    "type": "delivered",
                    "webhook_id": wid,
                    "attempts": result.attempts,
                    "status_code": result.status_code,
                    "at": now_iso(),
                },
            )
            self._safe_emit(
                {
                    "type": "webhook_delivered",
                    "webhook_id": wid,
                    "stage": stage,
                    "iteration": iteration,
                    "attempts": result.attempts,
                    "status_code": result.status_code,
                }
            )
        elif result.reason != "stopped":  # a stopped delivery stays pending for redelivery
            append_jsonl(
                self.paths.webhooks,
                {
                    "type": "gave_up",
                    "webhook_id": wid,
                    "attempts": result.attempts,
                    "reason": result.reason,
                    "at": now_iso(),
                },
            )
            self._safe_emit(
                {
                    "type": "webhook_failed",
                    "webhook_id": wid,
                    "stage": stage,
                    "iteration": iteration,
                    "attempts": result.attempts,
                    "status_code": result.status_code,
                    "reason": result.reason,
                }
            )

    def _safe_emit(self, event: dict[str, Any]) -> None:
        # Events are progress info; the delivery itself is already in the outbox.
        with contextlib.suppress(Exception):
            self._emit(event)

    def close(self, timeout: float | None = None) -> int:
        """Wait up to `timeout` seconds for the queue to drain; returns events left pending.

        Left-over events keep their `enqueued` row without a terminal row, so a
        resume or `codreamer webhooks redeliver` sends them later.
        """
        timeout = self.settings.webhook_drain_timeout_s if timeout is None else timeout
        thread = self._thread
        if thread is None:
            return 0
        self._queue.put(None)
        thread.join(max(0.0, timeout))
        if thread.is_alive():
            self._stop.set()  # cut backoffs short; an in-flight POST ends at its timeout
            return self._queue.qsize()
        return 0

    def __enter__(self) -> WebhookSender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _iteration_of(webhook_id: str) -> int | None:
    tail = webhook_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


def redeliver(
    paths: RunPaths, settings: Settings, *, url: str | None = None
) -> list[DeliveryResult]:
    """Send, in order and synchronously, every outbox event not yet delivered."""
    target = url or settings.frontend_url
    if not target:
        return []
    enqueued, terminal = outbox_state(paths)
    signer = make_signer(settings.webhook_secret)
    emit = default_emitter(paths)
    results: list[DeliveryResult] = []
    from codreamer.api.delivery import deliver, make_client

    with make_client(settings) as client:
        for wid, row in enqueued.items():
            if terminal.get(wid) == "delivered":
                continue
            stage = str(row.get("stage", "final"))
            body = encode_payload(row["payload"])

            def record(r: dict[str, Any]) -> None:
                append_jsonl(paths.webhooks, {**r, "redelivery": True})

            result = deliver(client, target, wid, stage, body, settings, record, None, signer)
            results.append(result)
            kind = "delivered" if result.delivered else "gave_up"
            append_jsonl(
                paths.webhooks,
                {
                    "type": kind,
                    "webhook_id": wid,
                    "attempts": result.attempts,
                    "status_code": result.status_code,
                    "reason": result.reason,
                    "redelivery": True,
                    "at": now_iso(),
                },
            )
            emit(
                {
                    "type": "webhook_delivered" if result.delivered else "webhook_failed",
                    "webhook_id": wid,
                    "stage": stage,
                    "iteration": _iteration_of(wid),
                    "attempts": result.attempts,
                    "status_code": result.status_code,
                    "redelivery": True,
                }
            )
    return results
