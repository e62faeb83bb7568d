"""One delivery attempt: POST the event once and classify the answer (DESIGN §7).

Only 2xx is success. Network errors, timeouts, 429 and 5xx are worth another
attempt (with the receiver's Retry-After, if any); any other status is final.
The schedule between attempts lives in the outbox, not here, so an attempt
never sleeps and a process can die between attempts without losing anything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from codreamer.retry_after import parse_retry_after
from codreamer.webhooks.envelope import build_headers, now_iso

if TYPE_CHECKING:  # the HTTP stack is imported only once something is sent
    import httpx

Verdict = Literal["delivered", "retry", "final"]


@dataclass(frozen=True)
class AttemptOutcome:
    verdict: Verdict
    status_code: int | None
    error: str | None
    retry_after: float | None
    elapsed_ms: int
    started_at: str  # ISO time the POST began

    @property
    def reason(self) -> str:
        if self.error:
            return self.error
        if self.verdict == "final":
            return f"HTTP {self.status_code} (not retried)"
        return f"HTTP {self.status_code}"


def post_once(
    client: httpx.Client, url: str, webhook_id: str, stage: str, body: str, signer: Any | None
) -> AttemptOutcome:
    # Deferred, both: httpx is slow to import; it loads where a webhook is posted.
    import httpx

    t0, started = time.monotonic(), now_iso()
    try:
        resp = client.post(
            url, content=body, headers=build_headers(webhook_id, stage, body, signer)
        )
    except httpx.HTTPError as exc:
        err = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return AttemptOutcome("retry", None, err, None, _ms(t0), started)
    code = resp.status_code
    if 200 <= code < 300:
        return AttemptOutcome("delivered", code, None, None, _ms(t0), started)
    if code == 429 or code >= 500:
        retry_after = parse_retry_after(resp.headers.get("retry-after"))
        return AttemptOutcome("retry", code, None, retry_after, _ms(t0), started)
    return AttemptOutcome("final", code, None, None, _ms(t0), started)


def make_client(timeout_s: float) -> httpx.Client:
    import httpx  # deferred: see post_once

    # A hung receiver costs at most timeout_s per attempt, never the run's time.
    return httpx.Client(timeout=httpx.Timeout(timeout_s), follow_redirects=False)


def _ms(t0: float) -> int:
    return int((time.monotonic() - t0) * 1000)
