"""The in-memory store of the latest result, its ordering rules, and a pub/sub for SSE.

Only the latest result is kept (DESIGN §8). Webhooks are retried and may arrive
out of order, so an event replaces the current one only if it is not older:
inside one run by (iteration, stage rank), across runs by `created_at`. A
webhook-id seen before is answered as done without touching anything.

All mutation happens under one lock so the store is safe from threads as well as
from the event loop; subscribers are woken on their own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from datetime import datetime
from enum import StrEnum

from web.models import (
    STAGE_RANK,
    AgentState,
    EmailNode,
    MetricPoint,
    WebhookPayload,
    order_key,
    utc_now,
)

# Enough for any realistic run's chart; bounds memory and serialisation if someone posts forever.
MAX_HISTORY = 500


class Outcome(StrEnum):
    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"  # this webhook-id was already processed
    STALE = "stale"  # older than the result already shown; kept out


def _effective_iteration(p: WebhookPayload) -> int:
    if p.iteration is not None:
        return p.iteration
    if p.stage == "final" and p.iterations is not None:
        return p.iterations
    return 0


def _history_order(key: tuple[int, str]) -> tuple[int, int]:
    return (key[0], STAGE_RANK[key[1]])


class _Subscriber:
    """One SSE client: a one-slot mailbox, because only the newest state matters."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize=1)

    def offer(self, state_json: str) -> None:
        # Runs on the subscriber's loop: drop the unread older state, keep the newer.
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(state_json)


class StateStore:
    def __init__(self, dedupe_capacity: int = 10_000) -> None:
        self._lock = threading.Lock()
        self._state = AgentState()
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._dedupe_capacity = dedupe_capacity
        self._subscribers: set[_Subscriber] = set()
        self._json_cache: tuple[int, str] | None = None
        # The latest run's metric points by (iteration, stage); sorted only when read, so
        # accepting a webhook stays O(1) however long the run.
        self._history: dict[tuple[int, str], MetricPoint] = {}

    # ---- reads -------------------------------------------------------------

    def snapshot(self) -> AgentState:
        with self._lock:
            self._sync_history_locked()
            return self._state.model_copy(deep=True)

    def state_json(self) -> str:
        with self._lock:
            return self._state_json_locked()

    def _state_json_locked(self) -> str:
        # Serialised once per version: SSE clients and polling share the same bytes.
        if self._json_cache is None or self._json_cache[0] != self._state.version:
            self._sync_history_locked()
            self._json_cache = (self._state.version, self._state.model_dump_json())
        return self._json_cache[1]

    def seen(self, webhook_id: str) -> bool:
        with self._lock:
            return webhook_id in self._seen

    # ---- writes ------------------------------------------------------------

    def apply(
        self,
        payload: WebhookPayload,
        webhook_id: str | None = None,
        received_at: datetime | None = None,
    ) -> Outcome:
        """Record one webhook event; answer what happened to it."""
        with self._lock:
            if webhook_id is not None:
                if webhook_id in self._seen:
                    return Outcome.DUPLICATE
                self._remember(webhook_id)
            current = self._state.latest
            same_run = current is not None and current.run_id == payload.run_id
            if same_run:
                self._add_history(payload)
            if current is not None and self._is_older(payload, current):
                if same_run:
                    self._bump_locked()  # the chart may have gained a point
                return Outcome.STALE
            if not same_run:
                self._history = {}
                self._add_history(payload)
            self._state.latest = EmailNode(
                run_id=payload.run_id,
                stage=payload.stage,
                iteration=payload.iteration,
                iterations=payload.iterations,
                email=payload.final_email,
                node_scores=payload.node_scores,
                metrics=payload.metrics,
                created_at=payload.created_at,
                received_at=received_at or utc_now(),
                webhook_id=webhook_id,
            )
            self._bump_locked()
            return Outcome.ACCEPTED

    def set_active_run(self, run_id: str | None) -> None:
        with self._lock:
            self._state.active_run_id = run_id
            self._bump_locked()

    def _remember(self, webhook_id: str) -> None:
        self._seen[webhook_id] = None
        while len(self._seen) > self._dedupe_capacity:
            self._seen.popitem(last=False)

    @staticmethod
    def _is_older(new: WebhookPayload, current: EmailNode) -> bool:
        if new.run_id == current.run_id:
            return new.order_key() < order_key(current.stage, current.iteration)
        return new.created_at < current.created_at

    def _add_history(self, p: WebhookPayload) -> None:
        if not p.metrics:
            return
        point = MetricPoint(iteration=_effective_iteration(p), stage=p.stage, metrics=p.metrics)
        # One point per (iteration, stage), whatever the arrival order; a retry overwrites.
        self._history[(point.iteration, point.stage)] = point
        if len(self._history) > MAX_HISTORY:
            # Drop the oldest tenth at once: one sort per ~50 webhooks, not a scan per webhook.
            for key in sorted(self._history, key=_history_order)[: MAX_HISTORY // 10 + 1]:
                del self._history[key]

    def _sync_history_locked(self) -> None:
        self._state.history = [self._history[k] for k in sorted(self._history, key=_history_order)]

    def _bump_locked(self) -> None:
        self._state.version += 1
        if not self._subscribers:
            return  # serialise lazily: nobody is listening right now
        state_json = self._state_json_locked()
        for sub in self._subscribers:
            # A closed loop means that client is going away; its generator cleans up.
            with contextlib.suppress(RuntimeError):
                sub.loop.call_soon_threadsafe(sub.offer, state_json)

    # ---- pub/sub -----------------------------------------------------------

    async def subscribe(self) -> AsyncIterator[str]:
        """Yield the state as JSON now and after every change, until cancelled."""
        sub = _Subscriber(asyncio.get_running_loop())
        with self._lock:
            self._subscribers.add(sub)
            sub.offer(self._state_json_locked())
        try:
            while True:
                yield await sub.queue.get()
        finally:
            with self._lock:
                self._subscribers.discard(sub)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)
