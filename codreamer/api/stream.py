"""`GET /runs/{id}/events`: a run's events.jsonl as Server-Sent Events.

The event id is the event's line number (= its `seq`), so a client that
reconnects with `Last-Event-ID: n` gets exactly the events after line n. The
stream tails the file (the run's process appends to it) and ends once the run
is in a final state and every line has been sent. `interrupted` ends a stream
too: nothing more happens until someone resumes the run.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

from sse_starlette import EventSourceResponse
from starlette.types import Receive, Scope, Send

from codreamer.errors import InvalidHeaderError, TooManyStreamsError
from codreamer.store.meta import read_meta
from codreamer.store.paths import RunPaths
from codreamer.store.status import ENDED_STATUSES

POLL_S = 0.2


def _status(paths: RunPaths) -> str | None:
    try:
        return read_meta(paths).status
    except (OSError, ValueError):
        return None


class _Tail:
    """Complete lines appended to a file since the last read (a torn last line waits)."""

    def __init__(self, paths: RunPaths) -> None:
        self.path = paths.events
        self.offset = 0
        self.line_no = 0

    def read(self) -> list[tuple[int, str]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        if end == 0:
            return []
        self.offset += end
        out = []
        for raw in data[:end].split(b"\n")[:-1]:
            self.line_no += 1
            line = raw.decode("utf-8", errors="replace").strip()
            if line:
                out.append((self.line_no, line))
        return out


async def event_stream(paths: RunPaths, last_event_id: int = 0) -> AsyncIterator[dict[str, Any]]:
    tail = _Tail(paths)
    while True:
        # Read the status before the lines: a final status seen now means every
        # event the run will write is already in the file we read next.
        status = _status(paths)
        for line_no, line in tail.read():
            if line_no <= last_event_id:
                continue
            try:
                kind = str(json.loads(line).get("type", "message"))
            except (ValueError, AttributeError):
                continue
            yield {"id": str(line_no), "event": kind, "data": line}
        if status in ENDED_STATUSES:
            yield {"event": "end", "data": json.dumps({"status": status})}
            return
        await asyncio.sleep(POLL_S)


# Event ids are line numbers: ASCII digits, and never more than ten of them.
# (`str.isdigit` says yes to "²", and int() of 5,000 digits raises: both were 500s.)
_EVENT_ID = re.compile(r"[0-9]{1,10}")


def parse_last_event_id(header: str | None, query: int | None) -> int:
    if query is not None:
        return max(0, query)
    value = (header or "").strip()
    if not value:
        return 0
    if not _EVENT_ID.fullmatch(value):
        raise InvalidHeaderError(
            "Last-Event-ID",
            "must be the id of an event this stream sent (ASCII digits, at most 10)",
        )
    return int(value)


class StreamSlots:
    """Open event streams, capped per client and in total: each stream polls its run's
    files, and hundreds of them slowed every other request (issue: 300 streams made
    GET /runs/{id} seven times slower). Over a cap: 429 with Retry-After."""

    RETRY_AFTER_S = 5

    def __init__(self, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self._open: Counter[str] = Counter()
        self._lock = threading.Lock()

    def acquire(self, client: str) -> None:
        with self._lock:
            if sum(self._open.values()) >= self.total:
                raise TooManyStreamsError(
                    f"{self.total} event streams are open on this server, the most it "
                    "serves; retry later or poll GET /runs/{run_id}",
                    self.RETRY_AFTER_S,
                )
            if self._open[client] >= self.per_client:
                raise TooManyStreamsError(
                    f"this client has {self.per_client} event streams open, the most one "
                    "client may; close one first",
                    self.RETRY_AFTER_S,
                )
            self._open[client] += 1

    def release(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]

    @property
    def open(self) -> int:
        with self._lock:
            return sum(self._open.values())


class SlotStream(EventSourceResponse):
    """An event stream that gives its slot back however it ends (finished, client
    gone, server shutting down), even if it never started sending."""

    def __init__(self, *args: Any, release: Callable[[], None], **kwargs: Any) -> None:
        self._release = release
        super().__init__(*args, **kwargs)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()
