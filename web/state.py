"""The in-memory store of the latest result, its ordering rules, and a pub/sub for SSE.

Only the latest result of each run is kept, for a bounded number of runs (DESIGN §8).
Webhooks are retried and may arrive out of order, so an event replaces its run's
result only if it is not older by (iteration, stage rank): a late retry never
replaces a newer event of its run. Across runs, the newest by `created_at` is
`latest`, with `created_at` capped at the arrival time so a sender's clock far in
the future cannot outrank later runs. The run this dashboard started is kept
apart (`active`), so the page shows that run's own result under it. A webhook-id
seen before is answered as done without touching anything.

All mutation happens under one lock so the store is safe from threads as well as
from the event loop; subscribers are woken on their own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from web.models import (
    STAGE_RANK,
    AgentState,
    EmailNode,
    MetricPoint,
    WebhookPayload,
    utc_now,
)

# Enough for any realistic run's chart; bounds memory and serialisation if someone posts forever.
MAX_HISTORY = 500
# Runs remembered (their newest result and chart); the oldest are forgotten first,
# never the one shown or the one the page follows.
MAX_RUNS = 32


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


def _add_point(run: _Run, p: WebhookPayload) -> None:
    if not p.metrics:
        return
    point = MetricPoint(iteration=_effective_iteration(p), stage=p.stage, metrics=p.metrics)
    # One point per (iteration, stage), whatever the arrival order; a retry overwrites.
    run.history[(point.iteration, point.stage)] = point
    if len(run.history) > MAX_HISTORY:
        # Drop the oldest tenth at once: one sort per ~50 webhooks, not a scan per webhook.
        for key in sorted(run.history, key=_history_order)[: MAX_HISTORY // 10 + 1]:
            del run.history[key]


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


@dataclass
class _Run:
    """What is kept of one run: its newest result and its chart points."""

    latest: EmailNode
    key: tuple[float, int]
    at: datetime  # the result's effective time (see `_effective_at`)
    history: dict[tuple[int, str], MetricPoint] = field(default_factory=dict)

    def points(self) -> list[MetricPoint]:
        return [self.history[k] for k in sorted(self.history, key=_history_order)]


def _effective_at(created_at: datetime, received_at: datetime) -> datetime:
    """When an event counts as made: its `created_at`, but never later than its arrival.

    A sender whose clock runs ahead (`created_at` in 2100) would otherwise outrank every
    later event of every other run; capped at arrival, it is simply "now".
    """
    return min(created_at, received_at)


class StateStore:
    def __init__(self, dedupe_capacity: int = 10_000, run_capacity: int = MAX_RUNS) -> None:
        self._lock = threading.Lock()
        self._version = 0
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._run_capacity = max(2, run_capacity)
        self._latest_run: str | None = None  # the run of the newest result overall
        self._active_run: str | None = None  # the run this dashboard last started
        self._active_since: datetime | None = None
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._dedupe_capacity = dedupe_capacity
        self._subscribers: set[_Subscriber] = set()
        self._json_cache: tuple[int, str] | None = None

    # ---- reads -------------------------------------------------------------

    def snapshot(self) -> AgentState:
        with self._lock:
            return self._state_locked()

    def _state_locked(self) -> AgentState:
        latest = self._runs.get(self._latest_run or "")
        active = self._runs.get(self._active_run or "")
        return AgentState(
            version=self._version,
            latest=latest.latest.model_copy(deep=True) if latest else None,
            history=latest.points() if latest else [],
            active_run_id=self._active_run,
            active_since=self._active_since,
            active=active.latest.model_copy(deep=True) if active else None,
            active_history=active.points() if active else [],
        )

    def state_json(self) -> str:
        with self._lock:
            return self._state_json_locked()

    def _state_json_locked(self) -> str:
        # Serialised once per version: SSE clients and polling share the same bytes.
        if self._json_cache is None or self._json_cache[0] != self._version:
            self._json_cache = (self._version, self._state_locked().model_dump_json())
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
        """Record one webhook event; answer what happened to it.

        Each run keeps its own newest result: an event older than that (a late retry)
        never replaces it, whatever its timestamp says. Across runs the newest
        result, by effective time, is `latest`.
        """
        received = received_at or utc_now()
        with self._lock:
            if webhook_id is not None:
                if webhook_id in self._seen:
                    return Outcome.DUPLICATE
                self._remember(webhook_id)
            at = _effective_at(payload.created_at, received)
            key = payload.order_key()
            run = self._runs.get(payload.run_id)
            node = EmailNode(
                run_id=payload.run_id,
                stage=payload.stage,
                iteration=payload.iteration,
                iterations=payload.iterations,
                email=payload.final_email,
                node_scores=payload.node_scores,
                metrics=payload.metrics,
                created_at=payload.created_at,
                received_at=received,
                webhook_id=webhook_id,
            )
            if run is not None:
                _add_point(run, payload)
                if key < run.key:
                    self._bump_locked()  # the chart may have gained a point
                    return Outcome.STALE
                run.latest, run.key, run.at = node, key, max(at, run.at)
                self._runs.move_to_end(payload.run_id)
            else:
                run = _Run(latest=node, key=key, at=at)
                _add_point(run, payload)
                self._runs[payload.run_id] = run
                self._evict_locked()
            shown = self._runs.get(self._latest_run or "")
            if shown is None or shown is run or run.at >= shown.at:
                self._latest_run = payload.run_id
                outcome = Outcome.ACCEPTED
            else:
                # Older than the newest result of another run: kept for its own run
                # (shown when that run is the one the page follows), not as `latest`.
                outcome = Outcome.ACCEPTED if payload.run_id == self._active_run else Outcome.STALE
            self._bump_locked()
            return outcome

    def set_active_run(self, run_id: str | None) -> None:
        with self._lock:
            self._active_run = run_id
            self._active_since = utc_now() if run_id else None
            self._bump_locked()

    def _evict_locked(self) -> None:
        keep = {self._latest_run, self._active_run}
        for run_id in list(self._runs):
            if len(self._runs) <= self._run_capacity:
                return
            if run_id not in keep:
                del self._runs[run_id]

    def _remember(self, webhook_id: str) -> None:
        self._seen[webhook_id] = None
        while len(self._seen) > self._dedupe_capacity:
            self._seen.popitem(last=False)

    def _bump_locked(self) -> None:
        self._version += 1
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
