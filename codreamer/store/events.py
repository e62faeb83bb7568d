"""The append-only progress log of a run (`events.jsonl`, DESIGN §5), with listeners.

Each event is a dict with a 1-based `seq` (its line number, which the API's
SSE stream uses as the event id), a `type`, and `at` (UTC time).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codreamer.logs import run_lines
from codreamer.models import utc_now_iso
from codreamer.store.files import append_jsonl, read_jsonl, repair_jsonl
from codreamer.store.gate import EventGate

EventListener = Callable[[dict[str, Any]], None]

TERMINAL_EVENTS = frozenset({"run_finished", "run_failed", "run_cancelled"})
# What a lifecycle line tells beside the event's type: counters and outcomes, never
# an email or a payload.
_LOGGED = ("iteration", "step", "status", "stage", "webhook_id", "attempt", "status_code")


class EventLog:
    def __init__(self, path: Any, listener: EventListener | None = None) -> None:
        self.path = path
        self.listener = listener
        # A test hook (codreamer/store/gate.py): None outside tests.
        self.gate: EventGate | None = None
        # The webhook sender's thread appends too; one lock keeps `seq` in step
        # with the line numbers.
        self._lock = threading.Lock()
        repair_jsonl(path)
        self._seq = len(read_jsonl(path))
        self._ended = False  # this writer has logged the run's terminal event

    def emit(self, type_: str, **data: Any) -> dict[str, Any]:
        with self._lock:
            if self._ended and type_.startswith("webhook_"):
                # The terminal event stays the log's last line (readers stop there):
                # a delivery that settles while the process drains after the run is
                # recorded in the outbox, not announced here.
                return {"type": type_, **data}
            self._ended = type_ in TERMINAL_EVENTS
            self._seq += 1
            event = {"seq": self._seq, "type": type_, "at": utc_now_iso(), **data}
            append_jsonl(self.path, event)
        self._log_line(event)
        if self.gate is not None:
            self.gate.passes(event)
        if self.listener is not None:
            with contextlib.suppress(Exception):  # a listener's bug must never stop a run
                self.listener(event)
        return event

    def _log_line(self, event: dict[str, Any]) -> None:
        facts = " ".join(f"{k}={event[k]}" for k in _LOGGED if event.get(k) is not None)
        line = run_lines(Path(self.path).parent.name)
        if event["type"] in ("run_failed",) and event.get("error"):
            line.warning("{} {} error={}", event["type"], facts, str(event["error"])[:300])
        else:
            line.info("{} {}", event["type"], facts)

    def emit_event(self, event: dict[str, Any]) -> None:
        """`emit` for writers that build the event dict themselves (the webhook sender)."""
        data = {k: v for k, v in event.items() if k not in ("seq", "at", "type")}
        self.emit(str(event.get("type", "event")), **data)
