"""A run's status (DESIGN §5, §6): the one vocabulary, and which statuses are live,
resumable, terminal or ended. Every module that asks "can this run be resumed?" or
"is it over?" asks here."""

from __future__ import annotations

from typing import Literal, get_args

RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled", "interrupted"]
STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)

# A process holds (or is about to hold) the run.
LIVE_STATUSES: frozenset[RunStatus] = frozenset({"queued", "running"})
# `resume` queues the run again; the loop carries on from its files.
RESUMABLE_STATUSES: frozenset[RunStatus] = frozenset({"interrupted", "failed", "cancelled"})
# The run will not change again unless resumed: its terminal webhook event is due.
TERMINAL_STATUSES: frozenset[RunStatus] = frozenset({"succeeded", "failed", "cancelled"})
# No process will write the run again on its own (an interrupted run waits for resume).
ENDED_STATUSES: frozenset[RunStatus] = TERMINAL_STATUSES | {"interrupted"}


def is_live(status: str) -> bool:
    return status in LIVE_STATUSES


def is_resumable(status: str) -> bool:
    return status in RESUMABLE_STATUSES


def is_terminal(status: str) -> bool:
    return status in TERMINAL_STATUSES
