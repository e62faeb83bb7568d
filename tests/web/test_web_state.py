"""Unit tests: payload model, ordering rules, dedupe, pub/sub, signatures, page helpers."""

from __future__ import annotations

import asyncio
import base64
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError
from standardwebhooks.webhooks import Webhook

from web.models import WebhookPayload
from web.page import node_anchor, paragraphs
from web.signature import SignatureError, Verifier, sign_headers
from web.state import Outcome, StateStore


def payload(**over: Any) -> WebhookPayload:
    data: dict[str, Any] = {
        "run_id": "run-a",
        "stage": "iteration",
        "iteration": 1,
        "final_email": {"subject": "s", "body": "b", "citations": []},
        "node_scores": {"Customer Job": 0.5},
    }
    data |= over
    return WebhookPayload.model_validate(data)


# ---- model -------------------------------------------------------------------


def test_prototype_payload_defaults() -> None:
    p = WebhookPayload.model_validate_json(
        '{"run_id": "r", "final_email": {"subject": "s", "body": "b"}, "node_scores": {}}'
    )
    assert p.stage == "final" and p.iteration is None and p.metrics == {}
    assert p.final_email.citations == []
    assert p.created_at.tzinfo is not None


def test_naive_created_at_is_utc_and_extra_fields_ignored() -> None:
    p = payload(created_at="2025-10-12T13:00:15", something_new=1)
    assert p.created_at == datetime(2025, 10, 12, 13, 0, 15, tzinfo=UTC)


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"stage": "midway"}, "stage"),
        ({"iteration": -1}, "iteration"),
        ({"node_scores": {"a": "high"}}, "node_scores"),
        ({"final_email": {"body": "no subject"}}, "final_email"),
        ({"run_id": ""}, "run_id"),
        ({"created_at": "yesterday"}, "created_at"),
    ],
)
def test_invalid_fields_are_named(over: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as exc:
        payload(**over)
    assert field in {e["loc"][0] for e in exc.value.errors()}


def test_nan_score_rejected() -> None:
    with pytest.raises(ValidationError):
        WebhookPayload.model_validate_json(
            '{"run_id":"r","final_email":{"subject":"s","body":"b"},"node_scores":{"a":NaN}}'
        )


# ---- ordering ----------------------------------------------------------------


def test_newer_iteration_replaces_and_older_does_not() -> None:
    store = StateStore()
    assert store.apply(payload(iteration=2)) is Outcome.ACCEPTED
    assert store.apply(payload(iteration=1)) is Outcome.STALE
    assert store.snapshot().latest.iteration == 2  # type: ignore[union-attr]
    assert store.apply(payload(iteration=3)) is Outcome.ACCEPTED


def test_stage_rank_inside_an_iteration() -> None:
    store = StateStore()
    assert store.apply(payload(stage="final", iteration=2)) is Outcome.ACCEPTED
    assert store.apply(payload(stage="iteration", iteration=2)) is Outcome.STALE
    assert store.apply(payload(stage="baseline", iteration=None)) is Outcome.STALE
    assert store.snapshot().latest.stage == "final"  # type: ignore[union-attr]


def test_final_without_iteration_is_newest_of_its_run() -> None:
    store = StateStore()
    store.apply(payload(stage="final", iteration=None))
    assert store.apply(payload(iteration=5)) is Outcome.STALE


def test_baseline_is_iteration_zero() -> None:
    store = StateStore()
    store.apply(payload(stage="iteration", iteration=1))
    assert store.apply(payload(stage="baseline", iteration=None)) is Outcome.STALE


def test_other_run_ordered_by_created_at() -> None:
    store = StateStore()
    store.apply(payload(run_id="new", created_at="2025-10-12T13:00:00Z"))
    old = payload(run_id="old", stage="final", iteration=9, created_at="2025-10-12T12:00:00Z")
    assert store.apply(old) is Outcome.STALE
    newer = payload(run_id="newer", iteration=0, created_at="2025-10-12T14:00:00Z")
    assert store.apply(newer) is Outcome.ACCEPTED
    assert store.snapshot().latest.run_id == "newer"  # type: ignore[union-attr]


def test_duplicate_webhook_id_changes_nothing() -> None:
    store = StateStore()
    assert store.apply(payload(iteration=1), webhook_id="m1") is Outcome.ACCEPTED
    version = store.snapshot().version
    assert store.apply(payload(iteration=7), webhook_id="m1") is Outcome.DUPLICATE
    assert store.snapshot().version == version
    assert store.snapshot().latest.iteration == 1  # type: ignore[union-attr]


def test_dedupe_memory_is_bounded() -> None:
    store = StateStore(dedupe_capacity=2)
    for i in range(3):
        store.apply(payload(iteration=i), webhook_id=f"m{i}")
    assert not store.seen("m0") and store.seen("m1") and store.seen("m2")


def test_history_keeps_late_points_in_iteration_order() -> None:
    store = StateStore()
    store.apply(payload(iteration=2, metrics={"mean": 0.6}))
    store.apply(payload(iteration=1, metrics={"mean": 0.5}))  # late, still charted
    store.apply(payload(stage="baseline", iteration=0, metrics={"mean": 0.4}))
    hist = store.snapshot().history
    assert [(h.iteration, h.metrics["mean"]) for h in hist] == [(0, 0.4), (1, 0.5), (2, 0.6)]
    store.apply(payload(run_id="run-b", iteration=1, metrics={"mean": 0.1}))
    assert [h.metrics["mean"] for h in store.snapshot().history] == [0.1]


def test_store_is_thread_safe() -> None:
    import threading

    store = StateStore()

    def worker(offset: int) -> None:
        for i in range(200):
            store.apply(payload(iteration=offset + i * 4), webhook_id=f"{offset}-{i}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.snapshot().latest.iteration == 3 + 199 * 4  # type: ignore[union-attr]


def test_subscribers_get_current_then_newer_states() -> None:
    async def scenario() -> list[int]:
        import json

        store = StateStore()
        stream = store.subscribe()
        first = json.loads(await stream.__anext__())
        store.apply(payload(iteration=1))
        store.apply(payload(iteration=2))  # overwrites the unread one: newest wins
        await asyncio.sleep(0)
        second = json.loads(await stream.__anext__())
        await stream.aclose()
        assert store.subscriber_count == 0
        return [first["version"], second["version"], second["latest"]["iteration"]]

    assert asyncio.run(scenario()) == [0, 2, 2]


# ---- signatures --------------------------------------------------------------


@pytest.mark.parametrize(
    "secret", ["plain secret string", "whsec_" + base64.b64encode(b"k" * 32).decode()]
)
def test_signature_round_trip(secret: str) -> None:
    body = b'{"run_id": "r"}'
    Verifier(secret).verify(body, sign_headers(secret, "msg_1", body))


def test_raw_secret_matches_backend_convention() -> None:
    # The backend signs with Webhook(base64(secret)) when the secret is not whsec_-prefixed.
    secret = "plain secret string"
    backend = Webhook(base64.b64encode(secret.encode()).decode())
    ts = int(time.time())
    sig = backend.sign("msg_1", datetime.fromtimestamp(ts, tz=UTC), "{}")
    headers = {"webhook-id": "msg_1", "webhook-timestamp": str(ts), "webhook-signature": sig}
    Verifier(secret).verify(b"{}", headers)


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda h: h | {"webhook-signature": "v1,AAAA"}, "signature"),
        (lambda h: h | {"webhook-signature": "nonsense"}, "malformed"),
        (lambda h: {k: v for k, v in h.items() if k != "webhook-signature"}, "headers"),
        (lambda h: h | {"webhook-timestamp": "soon"}, "timestamp"),
    ],
)
def test_bad_signatures_rejected(mutate: Any, reason: str) -> None:
    headers = mutate(sign_headers("s3cret", "m", b"{}"))
    with pytest.raises(SignatureError, match=f"(?i){reason}"):
        Verifier("s3cret").verify(b"{}", headers)


def test_tolerance_is_configurable() -> None:
    old = sign_headers("s3cret", "m", b"{}", time.time() - 400)
    with pytest.raises(SignatureError, match="too old"):
        Verifier("s3cret", tolerance_s=300).verify(b"{}", old)
    Verifier("s3cret", tolerance_s=600).verify(b"{}", old)
    future = sign_headers("s3cret", "m", b"{}", time.time() + 400)
    with pytest.raises(SignatureError, match="future"):
        Verifier("s3cret", tolerance_s=300).verify(b"{}", future)


def test_wrong_secret_rejected() -> None:
    with pytest.raises(SignatureError):
        Verifier("right").verify(b"{}", sign_headers("wrong", "m", b"{}"))


# ---- page helpers ------------------------------------------------------------


def test_node_anchor_is_a_safe_unique_id() -> None:
    assert node_anchor("Customer Job") == "node-Customer.20.Job"
    assert node_anchor("a-b_c9") == "node-a-b_c9"
    assert node_anchor('"><script>') == "node-.22..3e..3c.script.3e."
    assert node_anchor("a b") != node_anchor("a_b")


def test_paragraphs() -> None:
    assert paragraphs("one\nline\n\n two\r\n\r\nthree\n\n\n") == ["one\nline", " two", "three"]
