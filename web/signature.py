"""Standard Webhooks signatures: the secret convention shared with the backend.

The crypto is the `standardwebhooks` library's. Two conventions sit on top:

* A secret starting with `whsec_` is Standard Webhooks' base64 form; any other
  string is used as raw bytes (the backend signs with the same rule), so a human
  can set `CODREAMER_WEBHOOK_SECRET=something-long` on both sides.
* The timestamp tolerance is configurable (`CODREAMER_WEBHOOK_TOLERANCE_S`);
  the library hard-codes five minutes.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

__all__ = ["SignatureError", "Verifier", "make_webhook", "sign_headers"]

SECRET_PREFIX = "whsec_"


class SignatureError(Exception):
    """The request is not signed by the shared secret, or not recently (-> 401)."""


class _TolerantWebhook(Webhook):
    """`Webhook` whose timestamp window is ours instead of the fixed five minutes."""

    def __init__(self, secret: str | bytes, tolerance_s: float) -> None:
        super().__init__(secret)
        self._tolerance = timedelta(seconds=tolerance_s)

    # `Webhook.verify` calls the name-mangled `__verify_timestamp`; defining the mangled
    # name here is the one way to change the window while still using the library's verify.
    def _Webhook__verify_timestamp(self, timestamp_header: str) -> datetime:
        try:
            timestamp = datetime.fromtimestamp(float(timestamp_header), tz=UTC)
        except (ValueError, OverflowError, OSError) as exc:
            raise WebhookVerificationError("invalid webhook-timestamp header") from exc
        now = datetime.now(tz=UTC)
        if timestamp < now - self._tolerance:
            raise WebhookVerificationError("webhook-timestamp too old (stale or replayed)")
        if timestamp > now + self._tolerance:
            raise WebhookVerificationError("webhook-timestamp too far in the future")
        return timestamp


def _key(secret: str) -> str | bytes:
    return secret if secret.startswith(SECRET_PREFIX) else secret.encode()


def make_webhook(secret: str, tolerance_s: float = 300) -> Webhook:
    return _TolerantWebhook(_key(secret), tolerance_s)


class Verifier:
    def __init__(self, secret: str, tolerance_s: float = 300) -> None:
        self._webhook = make_webhook(secret, tolerance_s)

    def verify(self, body: bytes, headers: dict[str, str]) -> None:
        """Raise `SignatureError` unless `body` is signed, recently, with the secret."""
        try:
            self._webhook.verify(body, headers, json_parse=False)
        except WebhookVerificationError as exc:
            raise SignatureError(str(exc)) from exc
        except (ValueError, TypeError) as exc:
            # Malformed signature header (no "v1," part, bad base64) or a non-UTF-8 body.
            raise SignatureError("malformed webhook-signature header") from exc


def sign_headers(
    secret: str, msg_id: str, body: bytes | str, timestamp: float | None = None
) -> dict[str, str]:
    """The three Standard Webhooks headers for `body`, as the backend sends them."""
    ts = int(time.time() if timestamp is None else timestamp)
    data = body.decode() if isinstance(body, bytes) else body
    signature = make_webhook(secret).sign(msg_id, datetime.fromtimestamp(ts, tz=UTC), data)
    return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": signature}
