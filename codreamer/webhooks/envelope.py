"""The webhook envelope (DESIGN §7): id, body, headers and signature. No network
here, so recording a payload in the outbox costs no HTTP-client import."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from standardwebhooks.webhooks import Webhook

from codreamer.models import WebhookPayload


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def webhook_id_for(payload: WebhookPayload) -> str:
    """Stable per event, so retries, resumes and redeliveries all carry the same id."""
    iteration = payload.iteration if payload.iteration is not None else 0
    return f"msg_{payload.run_id}_{payload.stage}_{iteration}"


def make_signer(secret: str | None) -> Any | None:
    """A Standard Webhooks signer. `whsec_…` secrets are base64 (the spec's form);
    any other string is taken as raw bytes, the convention the dashboard verifies with."""
    if not secret:
        return None

    if secret.startswith("whsec_"):
        return Webhook(secret)
    return Webhook(base64.b64encode(secret.encode()).decode())


def build_headers(webhook_id: str, stage: str, body: str, signer: Any | None) -> dict[str, str]:
    # webhook-id always: a receiver deduplicates retries by it, signed or not.
    # A fresh timestamp per attempt (receivers reject stale ones); the id stays.
    now = datetime.now(UTC)
    headers = {
        "Content-Type": "application/json",
        "X-CoDreamer-Stage": stage,
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(now.timestamp())),
    }
    if signer is not None:
        headers["webhook-signature"] = signer.sign(webhook_id, now, body)
    return headers


def encode_payload(payload: WebhookPayload | dict[str, Any]) -> str:
    data = payload.model_dump(mode="json") if isinstance(payload, WebhookPayload) else payload
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class DeliveryResult:
    webhook_id: str
    delivered: bool
    attempts: int
    status_code: int | None = None
    reason: str | None = None


# Per node in `node_scores`: quotes, colon, comma and a float's digits (repr of a
# float is at most 24 characters), rounded up.
_PER_NODE_BYTES = 40
_ENVELOPE_BYTES = 64 * 1024


def max_payload_bytes(max_body_bytes: int, max_graph_nodes: int) -> int:
    """The largest webhook body a run can produce from a request the API accepts, so a
    receiver can be sized to take every one (the dashboard asks `GET /limits`).

    A node's id or text is re-encoded no longer than the request had it (UTF-8, no
    ASCII escapes; the request had to escape what JSON escapes). Everything the graph
    gives appears at most three times: the ids in `node_scores`, the cited ids, and
    the email's words (taken from node texts). Measured: a 1.2 MB graph whose node id
    is 600,000 characters gives 1.2 MB webhooks."""
    return 3 * max_body_bytes + _PER_NODE_BYTES * max_graph_nodes + _ENVELOPE_BYTES
