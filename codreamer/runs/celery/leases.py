"""Leases in Redis (celery mode): who executes a run, and who sends each webhook event.

`flock` does not hold across machines (network file systems), so in a cluster
liveness is a Redis key with a time-to-live that its holder keeps renewing: a
holder that dies stops renewing, and its lease expires after `ttl` seconds.
Release and renewal check the holder's token, so a holder that lost its lease
(it was too slow, another took over) can never delete or extend the new one.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import redis

from codreamer.config import ClusterSettings
from codreamer.runs.celery.keys import claim_key
from codreamer.store.paths import RunPaths

log = logging.getLogger(__name__)

_RELEASE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
)
# Renew; or take back a lease that expired while nobody else took it (a holder that
# was merely slow, e.g. starved of CPU, keeps its run).
_RENEW = (
    "local v = redis.call('get', KEYS[1]) "
    "if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end "
    "if not v then return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) and 1 or 0 end "
    "return 0"
)
# A webhook claim must outlive one attempt by far: a CPU-starved holder that lost its
# claim in the middle of an attempt could let the event be sent twice. Taking over a
# dead holder's event is never urgent (the schedule is in minutes and hours).
MIN_CLAIM_TTL_S = 30.0


def holder_token() -> str:
    """host:pid:random, so a lease says who holds it (tests and operators read it)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@lru_cache(maxsize=4)
def _redis_for(url: str, pid: int) -> Any:
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


def redis_client(cluster: ClusterSettings) -> Any:
    """One client per process (a forked child must not share its parent's sockets)."""
    assert cluster.broker_url
    return _redis_for(cluster.broker_url, os.getpid())


class Lease:
    def __init__(self, client: Any, key: str, ttl_s: float, token: str | None = None) -> None:
        self.client = client
        self.key = key
        self.ttl_ms = max(1, int(ttl_s * 1000))
        self.token = token or holder_token()

    def acquire(self) -> bool:
        return bool(self.client.set(self.key, self.token, nx=True, px=self.ttl_ms))

    def renew(self) -> bool:
        return bool(self.client.eval(_RENEW, 1, self.key, self.token, self.ttl_ms))

    def release(self) -> None:
        try:
            self.client.eval(_RELEASE, 1, self.key, self.token)
        except Exception:  # Redis gone: the lease expires by itself
            log.warning("could not release %s", self.key)

    def keep_alive(self, on_lost: Callable[[], None]) -> threading.Event:
        """Renew every third of the TTL on a thread; call `on_lost` if the lease is lost
        (or Redis stays unreachable for longer than the TTL). Set the returned event to
        stop renewing."""
        stop = threading.Event()
        interval = self.ttl_ms / 3000

        def loop() -> None:
            failures = 0
            while not stop.wait(interval):
                try:
                    ok = self.renew()
                    failures = 0
                except Exception:
                    failures += 1
                    ok = failures < 3  # 3 misses in a row is a whole TTL
                if not ok and not stop.is_set():
                    on_lost()
                    return

        threading.Thread(target=loop, name=f"lease-{self.key}", daemon=True).start()
        return stop


class RedisEventClaims:
    """EventClaims (codreamer.webhooks.claims) over Redis: one sender per webhook event
    across every machine. A claim outlives any one attempt (bounded by the webhook
    timeout), so only a dead holder's claim expires, and then the event goes on."""

    def __init__(self, client: Any, webhook_timeout_s: float) -> None:
        self.client = client
        self.ttl_s = max(MIN_CLAIM_TTL_S, 4 * webhook_timeout_s)
        self.token = holder_token()

    def claim(self, paths: RunPaths, webhook_id: str) -> Callable[[], None] | None:
        lease = Lease(self.client, claim_key(paths.run_id, webhook_id), self.ttl_s, self.token)
        try:
            if not lease.acquire():
                return None
        except Exception:  # Redis away: nobody can claim, the event waits for its return
            return None
        return lease.release
