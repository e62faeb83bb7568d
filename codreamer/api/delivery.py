"""One webhook delivery (DESIGN §7): Standard Webhooks signing, headers, bounded retries.

Only 2xx is success. Network errors, timeouts, 429 and 5xx are retried with
exponential backoff and jitter (tenacity), honouring Retry-After; other
statuses are final. Attempts and total time are bounded by Settings.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    stop_before_delay,
    stop_when_event_set,
    wait_exponential_jitter,
)

from codreamer.api.envelope import (
    DeliveryResult,
    build_headers,
    now_iso,
)
from codreamer.config import Settings
from codreamer.retry_after import parse_retry_after


class _Retryable(Exception):
    def __init__(self, status_code: int | None, error: str | None, retry_after: float | None):
        self.status_code = status_code
        self.error = error
        self.retry_after = retry_after
        super().__init__(error or f"HTTP {status_code}")


class _Permanent(Exception):
    def __init__(self, status_code: int) -> None:
        self.status_code = status_code
        super().__init__(f"HTTP {status_code} (not retried)")


def deliver(
    client: httpx.Client,
    url: str,
    webhook_id: str,
    stage: str,
    body: str,
    settings: Settings,
    record: Callable[[dict[str, Any]], None],
    stop: threading.Event | None = None,
    signer: Any | None = None,
) -> DeliveryResult:
    """POST one event with bounded retries, recording every attempt via `record`."""
    stop = stop or threading.Event()
    backoff = wait_exponential_jitter(
        multiplier=settings.webhook_backoff_initial_s,
        max=settings.webhook_backoff_max_s,
        jitter=settings.webhook_backoff_initial_s,
    )
    last: dict[str, Any] = {}
    calls = [0]

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return min(exc.retry_after, settings.webhook_backoff_max_s)
        return float(backoff(state))

    def before_sleep(state: RetryCallState) -> None:
        delay = state.upcoming_sleep
        record({**last, "next_delay_s": round(delay, 3)})

    def attempt() -> int:
        last.clear()
        calls[0] += 1
        n = calls[0]
        t0 = time.monotonic()
        base = {"type": "attempt", "webhook_id": webhook_id, "attempt": n, "at": now_iso()}
        try:
            resp = client.post(
                url, content=body, headers=build_headers(webhook_id, stage, body, signer)
            )
        except httpx.HTTPError as exc:
            err = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            last.update(base, status_code=None, error=err, elapsed_ms=_ms(t0))
            raise _Retryable(None, err, None) from None
        last.update(base, status_code=resp.status_code, error=None, elapsed_ms=_ms(t0))
        if 200 <= resp.status_code < 300:
            return resp.status_code
        if resp.status_code == 429 or resp.status_code >= 500:
            retry_after = parse_retry_after(resp.headers.get("retry-after"))
            raise _Retryable(resp.status_code, None, retry_after)
        raise _Permanent(resp.status_code)

    retrying = Retrying(
        stop=(
            stop_after_attempt(max(1, settings.webhook_max_attempts))
            | stop_before_delay(settings.webhook_max_elapsed_s)
            | stop_when_event_set(stop)
        ),
        wait=wait,
        retry=retry_if_exception_type(_Retryable),
        before_sleep=before_sleep,
        # Sleeping on the stop event lets close() cut a backoff short.
        sleep=lambda seconds: None if stop.wait(seconds) else None,
        reraise=True,
    )
    try:
        status = retrying(attempt)
    except _Retryable as exc:
        record({**last, "next_delay_s": None})
        reason = "stopped" if stop.is_set() else (exc.error or f"HTTP {exc.status_code}")
        return DeliveryResult(webhook_id, False, calls[0], exc.status_code, reason)
    except _Permanent as exc:
        record({**last, "next_delay_s": None})
        return DeliveryResult(webhook_id, False, calls[0], exc.status_code, str(exc))
    record({**last, "next_delay_s": None})
    return DeliveryResult(webhook_id, True, calls[0], status)


def _ms(t0: float) -> int:
    return int((time.monotonic() - t0) * 1000)


def make_client(settings: Settings) -> httpx.Client:
    # A hung receiver costs at most webhook_timeout_s per attempt, never the run's time.
    return httpx.Client(timeout=httpx.Timeout(settings.webhook_timeout_s), follow_redirects=False)
