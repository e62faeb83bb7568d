"""How large a request and a webhook the dashboard takes: the backend's own limits.

The dashboard forwards Generate to the backend and receives the backend's webhooks,
so its size caps follow the backend's (`GET /limits`): it accepts every run request
the backend accepts, and every webhook a run of such a request can send (a graph
with one 600,000-character node id gives 1.2 MB webhooks). CODREAMER_WEB_MAX_BODY_BYTES
is the floor, and the whole answer when the backend cannot be asked.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from web.backend import BackendClient, BackendUnavailable

# The backend's limits change only with its configuration; failures are asked again soon.
_FRESH_S = 300.0
_RETRY_S = 5.0
# Whatever the backend says, never more than this (a misconfigured or hostile backend
# URL must not make the receiver buffer gigabytes).
CEILING_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Sizes:
    request_bytes: int
    webhook_bytes: int
    source: str  # "backend" | "floor"


class SizeLimits:
    def __init__(self, backend: BackendClient, floor_bytes: int) -> None:
        self.backend = backend
        self.floor = Sizes(floor_bytes, floor_bytes, "floor")
        self._known: tuple[float, Sizes] | None = None
        self._lock = asyncio.Lock()

    async def for_length(self, declared: str | None) -> Sizes:
        """The limits for a request declaring `declared` bytes: within the floor, the
        floor, without asking anyone (a webhook is answered fast even while the
        backend is away); larger or undeclared (chunked), the backend's."""
        if (
            declared is not None
            and declared.isdigit()
            and int(declared) <= self.floor.webhook_bytes
        ):
            return self.floor
        return await self.get()

    async def get(self) -> Sizes:
        known = self._known
        if known is not None and time.monotonic() < known[0]:
            return known[1]
        async with self._lock:  # one question at a time, however many requests wait
            known = self._known
            if known is not None and time.monotonic() < known[0]:
                return known[1]
            sizes = await self._ask()
            fresh = _FRESH_S if sizes.source == "backend" else _RETRY_S
            self._known = (time.monotonic() + fresh, sizes)
            return sizes

    async def _ask(self) -> Sizes:
        try:
            answer = await self.backend.request("GET", "/limits")
        except BackendUnavailable:
            return self.floor
        data = answer.data if answer.ok and isinstance(answer.data, dict) else {}
        request = _positive_int(data.get("max_body_bytes"))
        webhook = _positive_int(data.get("max_webhook_bytes"))
        if request is None or webhook is None:
            return self.floor  # an older backend without /limits, or a refusal
        return Sizes(
            min(CEILING_BYTES, max(self.floor.request_bytes, request)),
            min(CEILING_BYTES, max(self.floor.webhook_bytes, webhook)),
            "backend",
        )


def _positive_int(value: object) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    return value if ok and isinstance(value, int) else None
