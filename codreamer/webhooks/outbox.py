"""A run's webhook outbox (`webhooks.jsonl`): every event and every attempt, append-only.

Rows (one JSON object a line; `at` is ISO time, `*_ts` Unix seconds):

    {"type": "enqueued",  "webhook_id", "stage", "iteration", "payload", "at", "next_at_ts"}
    {"type": "attempt",   "webhook_id", "attempt", "status_code", "error", "elapsed_ms",
                          "next_delay_s", "next_at_ts", "outcome", "at", ["sender"]}
    {"type": "delivered", "webhook_id", "attempts", "status_code", "at"}
    {"type": "gave_up",   "webhook_id", "attempts", "status_code", "reason", "at"}
    {"type": "skipped",   "webhook_id", "reason", "at"}            (no receiver configured)

The payload is written before any network I/O and each attempt row carries the
time of the next one, so the outbox alone says what is pending and when: any
process that reads it after any crash carries on with the same schedule and the
same `webhook-id`. An event's state is the fold of its rows; `delivered` wins
over everything (a redelivery after giving up is still a delivery).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from codreamer.logs import run_lines
from codreamer.models import WebhookPayload
from codreamer.store.files import append_jsonl, iter_jsonl
from codreamer.store.paths import RunPaths
from codreamer.webhooks.attempt import AttemptOutcome
from codreamer.webhooks.envelope import encode_payload, now_iso, webhook_id_for
from codreamer.webhooks.schedule import next_delay

EventStatus = Literal["pending", "delivered", "gave_up", "skipped"]
# How many given-up events a run's status lists (the count is always exact).
GIVEN_UP_LISTED = 20


@dataclass
class OutboxEvent:
    webhook_id: str
    stage: str
    iteration: int | None
    payload: dict[str, Any]
    status: EventStatus = "pending"
    attempts: int = 0
    next_at: float | None = None  # Unix time of the next attempt (pending only)
    status_code: int | None = None
    reason: str | None = None

    @property
    def body(self) -> str:
        return encode_payload(self.payload)

    def due(self, now: float) -> bool:
        return self.status == "pending" and (self.next_at is None or self.next_at <= now)


def read_outbox(path: Path) -> dict[str, OutboxEvent]:
    """Every event of the outbox by webhook id, in enqueue order."""
    events: dict[str, OutboxEvent] = {}
    for row in iter_jsonl(path):
        wid = row.get("webhook_id")
        kind = row.get("type")
        if not isinstance(wid, str):
            continue
        if kind == "enqueued":
            if wid not in events and isinstance(row.get("payload"), dict):
                events[wid] = OutboxEvent(
                    wid,
                    str(row.get("stage", "final")),
                    row.get("iteration"),
                    row["payload"],
                    next_at=row.get("next_at_ts"),
                )
            continue
        ev = events.get(wid)
        if ev is None:
            continue
        if kind == "attempt":
            ev.attempts = max(ev.attempts, int(row.get("attempt") or 0))
            ev.status_code = row.get("status_code")
            # The attempt row settles the event by itself (the terminal row that follows
            # confirms it), so no reader ever sees a finished attempt as still due.
            outcome = row.get("outcome")
            if outcome == "delivered":
                ev.status, ev.reason = "delivered", None
            elif outcome == "gave_up" and ev.status != "delivered":
                ev.status, ev.reason = "gave_up", row.get("reason")
            elif ev.status == "pending":
                ev.next_at = row.get("next_at_ts")
        elif kind == "delivered":
            ev.status, ev.reason = "delivered", None
            ev.status_code = row.get("status_code", ev.status_code)
        elif kind == "gave_up" and ev.status != "delivered":
            ev.status, ev.reason = "gave_up", row.get("reason")
        elif kind == "skipped" and ev.status == "pending":
            ev.status, ev.reason = "skipped", row.get("reason")
    return events


def summarize(events: dict[str, OutboxEvent]) -> dict[str, Any]:
    """The `webhooks` block of GET /runs/{id}: counts, given-up events, next attempt."""
    counts = {"delivered": 0, "gave_up": 0, "pending": 0, "skipped": 0}
    for ev in events.values():
        counts[ev.status] += 1
    pending_at = [ev.next_at or 0.0 for ev in events.values() if ev.status == "pending"]
    given_up = [ev for ev in events.values() if ev.status == "gave_up"]
    return {
        "delivered": counts["delivered"],
        "failed": counts["gave_up"],
        "pending": counts["pending"],
        "skipped": counts["skipped"],
        "next_attempt_at": _iso(min(pending_at)) if pending_at else None,
        "given_up": [
            {
                "webhook_id": ev.webhook_id,
                "stage": ev.stage,
                "iteration": ev.iteration,
                "attempts": ev.attempts,
                "status_code": ev.status_code,
                "reason": ev.reason,
            }
            for ev in given_up[:GIVEN_UP_LISTED]
        ],
    }


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class Outbox:
    """Writes a run's outbox rows. Appends are single writes (O_APPEND), so several
    threads and processes can record without a lock."""

    def __init__(self, paths: RunPaths, schedule: tuple[float, ...]) -> None:
        self.paths = paths
        self.schedule = schedule

    @property
    def path(self) -> Path:
        return self.paths.webhooks

    def read(self) -> dict[str, OutboxEvent]:
        return read_outbox(self.path)

    def enqueue(self, payload: WebhookPayload, *, known: set[str] | None = None) -> str | None:
        """Record a new event, due after the schedule's first delay. Returns its id, or
        None when the outbox already has it (a resumed run re-announcing an event)."""
        wid = webhook_id_for(payload)
        if wid in (known if known is not None else self.read()):
            return None
        append_jsonl(
            self.path,
            {
                "type": "enqueued",
                "webhook_id": wid,
                "stage": payload.stage,
                "iteration": payload.iteration,
                "payload": json.loads(encode_payload(payload)),
                "at": now_iso(),
                "next_at_ts": time.time() + (self.schedule[0] if self.schedule else 0.0),
            },
        )
        return wid

    def record_attempt(
        self,
        ev: OutboxEvent,
        outcome: AttemptOutcome,
        *,
        final: bool = False,
        sender: str | None = None,
    ) -> str:
        """Append the attempt and, if it settles the event, its terminal row. `final`:
        a one-off attempt (a redelivery), settled whatever the outcome. `sender`: who
        made the attempt, written on its row. Returns the event's new status."""
        n = ev.attempts + 1
        extra: dict[str, Any] = {"redelivery": True} if final else {}
        delay = (
            next_delay(self.schedule, n, outcome.retry_after)
            if outcome.verdict == "retry" and not final
            else None
        )
        status = "delivered" if outcome.verdict == "delivered" else "pending"
        reason = None
        if status == "pending" and delay is None:
            status, reason = "gave_up", outcome.reason
            if outcome.verdict == "retry" and not final:
                reason = f"{reason}; gave up after {n} attempt(s)"
        row: dict[str, Any] = {
            "type": "attempt",
            "webhook_id": ev.webhook_id,
            "attempt": n,
            "status_code": outcome.status_code,
            "error": outcome.error,
            "elapsed_ms": outcome.elapsed_ms,
            "next_delay_s": None if delay is None else round(delay, 3),
            "next_at_ts": None if delay is None else time.time() + delay,
            "outcome": "retry" if status == "pending" else status,
            "at": outcome.started_at,
            **extra,
        }
        if sender is not None:
            row["sender"] = sender
        if reason is not None:
            row["reason"] = reason
        append_jsonl(self.path, row)
        run_lines(self.paths.run_id).info(
            "webhook {} stage={} attempt={} outcome={} status_code={} elapsed_ms={}{}",
            ev.webhook_id,
            ev.stage,
            n,
            row["outcome"],
            outcome.status_code,
            outcome.elapsed_ms,
            f" error={outcome.error[:200]}" if outcome.error else "",
        )
        if status != "pending":
            self._terminal(status, ev.webhook_id, n, outcome.status_code, reason, extra)
        return status

    def give_up(self, ev: OutboxEvent, reason: str) -> None:
        self._terminal("gave_up", ev.webhook_id, ev.attempts, ev.status_code, reason, {})

    def skip(self, ev: OutboxEvent, reason: str) -> None:
        append_jsonl(
            self.path,
            {"type": "skipped", "webhook_id": ev.webhook_id, "reason": reason, "at": now_iso()},
        )

    def _terminal(
        self,
        kind: str,
        wid: str,
        attempts: int,
        status_code: int | None,
        reason: str | None,
        extra: dict[str, Any],
    ) -> None:
        row: dict[str, Any] = {
            "type": kind,
            "webhook_id": wid,
            "attempts": attempts,
            "status_code": status_code,
            "at": now_iso(),
            **extra,
        }
        if kind == "gave_up":
            row["reason"] = reason
        append_jsonl(self.path, row)
