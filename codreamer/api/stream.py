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
from collections.abc import AsyncIterator
from typing import Any

from codreamer.loop.artifacts import RunPaths, read_json

POLL_S = 0.2
END_STATUSES = frozenset({"succeeded", "failed", "cancelled", "interrupted"})


def _status(paths: RunPaths) -> str | None:
    try:
        return str(read_json(paths.meta).get("status"))
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
        if status in END_STATUSES:
            yield {"event": "end", "data": json.dumps({"status": status})}
            return
        await asyncio.sleep(POLL_S)


def parse_last_event_id(header: str | None, query: int | None) -> int:
    if query is not None:
        return max(0, query)
    if header and header.strip().isdigit():
        return int(header.strip())
    return 0
