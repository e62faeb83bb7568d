"""The retry schedule (Standard Webhooks / Svix style): the delay before each attempt.

`schedule[0]` is the delay before the first attempt (0: at once), `schedule[i]`
the delay after attempt i before attempt i+1; its length is the number of
attempts. The default spans about 18 hours, so a receiver that is down for an
afternoon still gets everything. `CODREAMER_WEBHOOK_SCHEDULE` takes the delays
in seconds, comma-separated (tests use a short one).
"""

from __future__ import annotations

from codreamer.config import DEFAULT_WEBHOOK_SCHEDULE, parse_schedule

__all__ = ["DEFAULT_WEBHOOK_SCHEDULE", "parse_schedule", "next_delay"]

# A receiver's Retry-After is honoured (never retried sooner), but a silly value
# must not park an event for days.
MAX_RETRY_AFTER_S = 86_400.0


def next_delay(
    schedule: tuple[float, ...], attempts_done: int, retry_after: float | None = None
) -> float | None:
    """Seconds to wait before the next attempt, or None when the schedule is exhausted."""
    if attempts_done >= len(schedule):
        return None
    delay = schedule[attempts_done]
    if retry_after is not None:
        delay = max(delay, min(retry_after, MAX_RETRY_AFTER_S))
    return delay
