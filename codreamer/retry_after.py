"""`Retry-After` parsing, shared by every HTTP client here (webhooks, LLM calls)."""

from __future__ import annotations

import time
from datetime import UTC
from email.utils import parsedate_to_datetime


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After in seconds, from delta-seconds or an HTTP date; None when absent or
    unreadable. `now` (a Unix time) is for tests."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    ref = now if now is not None else time.time()
    return max(0.0, when.timestamp() - ref)
