"""Exactly one sender per event: an atomic claim every sender takes before it POSTs.

Several processes may deliver the same outbox at once: the run's own dispatcher,
the store-wide dispatcher of the API (local mode) or of every replica and worker
(celery mode), `codreamer webhooks dispatch` and `codreamer webhooks redeliver`.
Each of them attempts an event only through `attempt_claimed`:

    claim the event  ->  read the outbox again  ->  still due?  ->  POST  ->  record  ->  release

The outbox is re-read *after* the claim, and the attempt is recorded *before* the
release, so the next holder of the claim always sees the previous holder's
outcome: a delivered event is never sent again, whatever the senders' timing.

A claim dies with its holder, so a crash never strands an event:

- `FileClaims` (local mode): an `flock` on a small per-event claim file in the run
  directory; the kernel drops it when the holder dies, however it dies. The file is
  removed on release (so a run directory holds none at rest).
- `RedisEventClaims` (celery mode, codreamer.runs.celery.leases): `flock` does not
  hold across machines on network file systems, so a Redis key with a time-to-live
  longer than one attempt.

The one duplicate left is inherent to HTTP: a holder that dies after the receiver
answered 2xx but before the outcome reached the outbox. The next sender sends the
event again with the same `webhook-id`, which Standard Webhooks receivers dedupe.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable
from typing import Protocol, TypeVar

from codreamer.store.paths import RunPaths
from codreamer.webhooks.outbox import OutboxEvent, read_outbox

T = TypeVar("T")
Release = Callable[[], None]


class EventClaims(Protocol):
    def claim(self, paths: RunPaths, webhook_id: str) -> Release | None:
        """Claim the event without waiting: a function that lets it go, or None when
        another sender holds it."""


class FileClaims:
    # A claim file may be unlinked by its previous holder between our open and our
    # lock; then we hold a lock nobody else can see, and start again.
    _TRIES = 3

    def claim(self, paths: RunPaths, webhook_id: str) -> Release | None:
        path = paths.webhook_claim(webhook_id)
        for _ in range(self._TRIES):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return None
            try:
                mine, now = os.fstat(fd), os.stat(path)
                same = (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)
            except OSError:
                same = False
            if same:
                return _file_release(path, fd)
            os.close(fd)
        return None


def _file_release(path: os.PathLike[str] | str, fd: int) -> Release:
    def release() -> None:
        # Unlink while still holding the lock, then drop it: whoever opened the old
        # file meanwhile sees it is gone (the inode check above) and starts again.
        with contextlib.suppress(OSError):
            os.unlink(path)
        with contextlib.suppress(OSError):
            os.close(fd)

    return release


def attempt_claimed(
    claims: EventClaims,
    paths: RunPaths,
    webhook_id: str,
    eligible: Callable[[OutboxEvent], bool],
    send: Callable[[OutboxEvent], T],
) -> tuple[OutboxEvent, T] | None:
    """Send one event if this sender can claim it and, read again under the claim, it
    is still `eligible`; `send` must record its outcome in the outbox before returning.
    Returns the event as read under the claim and what `send` returned, or None when
    the event was not sent (claimed elsewhere, already settled, not due any more)."""
    release = claims.claim(paths, webhook_id)
    if release is None:
        return None
    try:
        ev = read_outbox(paths.webhooks).get(webhook_id)
        if ev is None or not eligible(ev):
            return None
        return ev, send(ev)
    finally:
        release()
