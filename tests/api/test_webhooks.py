"""The webhook sender against a real receiving HTTP server on loopback."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook
from webhook_receiver import Receiver

from codreamer.api.webhooks import WebhookSender, outbox_state, redeliver
from codreamer.config import Settings
from codreamer.loop.artifacts import RunPaths, read_jsonl
from codreamer.models import FinalEmail, WebhookPayload
from codreamer.retry_after import parse_retry_after

RUN_ID = "api-20250101-120000-abcdef"


def settings(**kw: object) -> Settings:
    base: dict[str, object] = {
        "webhook_backoff_initial_s": 0.05,
        "webhook_backoff_max_s": 0.5,
        "webhook_timeout_s": 1.0,
        "webhook_max_attempts": 6,
        "webhook_max_elapsed_s": 10.0,
        "webhook_drain_timeout_s": 5.0,
        "webhook_secret": None,
        "frontend_url": None,
    }
    base.update(kw)
    return Settings(**base)  # type: ignore[arg-type]


def payload(stage: str = "iteration", iteration: int = 1) -> WebhookPayload:
    return WebhookPayload(
        run_id=RUN_ID,
        stage=stage,  # type: ignore[arg-type]
        iteration=iteration,
        iterations=2,
        final_email=FinalEmail(subject="Hi", body="Body", citations=["Customer Job"]),
        node_scores={"Customer Job": 0.7, "Product Feature": 0.9},
        metrics={"mean": 0.5, "max": 0.8},
    )


@pytest.fixture
def paths(tmp_path: Path) -> RunPaths:
    p = RunPaths(tmp_path / RUN_ID)
    p.dir.mkdir()
    return p


def rows(paths: RunPaths, kind: str) -> list[dict]:
    return [r for r in read_jsonl(paths.webhooks) if r["type"] == kind]


WHSEC = "whsec_" + base64.b64encode(b"k" * 24).decode()


@pytest.mark.parametrize("secret", ["plain-secret", WHSEC])
def test_delivers_in_order_with_stage_headers_and_verifiable_signatures(
    paths: RunPaths, secret: str
) -> None:
    with Receiver() as rx:
        sender = WebhookSender(paths, settings(webhook_secret=secret), url=rx.url)
        events = [payload("baseline", 0), payload("iteration", 1), payload("final", 2)]
        for ev in events:
            sender.send(ev)
        assert sender.close(5) == 0
        got = rx.wait_for(3)
    assert [r.stage for r in got] == ["baseline", "iteration", "final"]
    raw = base64.b64encode(secret.encode()).decode()
    verifier = Webhook(secret) if secret.startswith("whsec_") else Webhook(raw)
    for r, ev in zip(got, events, strict=True):
        assert r.headers["content-type"] == "application/json"
        assert r.headers["webhook-id"] == f"msg_{RUN_ID}_{ev.stage}_{ev.iteration}"
        body = verifier.verify(r.body, r.headers)
        assert body == ev.model_dump(mode="json")
    assert len(rows(paths, "delivered")) == 3
    assert [e["type"] for e in read_jsonl(paths.events)] == ["webhook_delivered"] * 3
    assert [e["seq"] for e in read_jsonl(paths.events)] == [1, 2, 3]


def test_unsigned_when_no_secret(paths: RunPaths) -> None:
    with Receiver() as rx:
        sender = WebhookSender(paths, settings(), url=rx.url)
        sender.send(payload())
        sender.close(5)
        (r,) = rx.wait_for(1)
    assert "webhook-signature" not in r.headers
    assert r.headers["x-codreamer-stage"] == "iteration"


def test_500_then_200_is_retried_and_the_id_kept(paths: RunPaths) -> None:
    with Receiver(statuses=[500, 503]) as rx:
        sender = WebhookSender(paths, settings(webhook_secret="s"), url=rx.url)
        sender.send(payload())
        sender.close(5)
    assert [r.status for r in rx.received] == [500, 503, 200]
    assert len({r.headers["webhook-id"] for r in rx.received}) == 1
    attempts = rows(paths, "attempt")
    assert [a["status_code"] for a in attempts] == [500, 503, 200]
    assert attempts[0]["next_delay_s"] > 0 and attempts[-1]["next_delay_s"] is None
    assert rows(paths, "delivered")[0]["attempts"] == 3


def test_400_is_not_retried(paths: RunPaths) -> None:
    with Receiver(default=400) as rx:
        sender = WebhookSender(paths, settings(), url=rx.url)
        sender.send(payload())
        sender.close(5)
    assert len(rx.received) == 1
    assert rows(paths, "gave_up")[0]["reason"] == "HTTP 400 (not retried)"
    (ev,) = read_jsonl(paths.events)
    assert ev["type"] == "webhook_failed" and ev["status_code"] == 400


def test_attempts_are_bounded(paths: RunPaths) -> None:
    with Receiver(default=500) as rx:
        sender = WebhookSender(paths, settings(webhook_max_attempts=3), url=rx.url)
        sender.send(payload())
        sender.close(10)
    assert len(rx.received) == 3
    assert rows(paths, "gave_up")[0]["attempts"] == 3


def test_retry_after_is_honoured(paths: RunPaths) -> None:
    with Receiver(statuses=[429], retry_after="1") as rx:
        sender = WebhookSender(paths, settings(webhook_backoff_max_s=5), url=rx.url)
        sender.send(payload())
        sender.close(10)
    first, second = rx.received
    assert second.at - first.at >= 0.95
    assert rows(paths, "attempt")[0]["next_delay_s"] == 1.0


def test_receiver_down_at_first_gets_every_event_once(paths: RunPaths) -> None:
    rx = Receiver(down_for_s=1.5).start()
    try:
        sender = WebhookSender(paths, settings(webhook_max_attempts=30), url=rx.url)
        for i in range(4):
            sender.send(payload("iteration", i + 1))
        assert sender.close(15) == 0
        got = rx.wait_for(4)
    finally:
        rx.stop()
    assert [r.json["iteration"] for r in got] == [1, 2, 3, 4]
    assert len(rx.received) == 4  # nothing delivered twice
    assert any(a["error"] for a in rows(paths, "attempt"))


def test_hanging_receiver_never_blocks_send_and_close_is_bounded(paths: RunPaths) -> None:
    with Receiver(hang_s=3) as rx:
        sender = WebhookSender(paths, settings(webhook_timeout_s=0.3), url=rx.url)
        t0 = time.monotonic()
        for i in range(3):
            sender.send(payload("iteration", i + 1))
        assert time.monotonic() - t0 < 0.2
        pending = sender.close(0.5)
        assert time.monotonic() - t0 < 1.5
    assert pending >= 1
    _, terminal = outbox_state(paths)
    assert "delivered" not in terminal.values()
    # Later, to a healthy receiver: every event, same ids, in order.
    with Receiver() as ok:
        results = redeliver(paths, settings(), url=ok.url)
        got = ok.wait_for(3)
    assert all(r.delivered for r in results)
    assert [r.headers.get("x-codreamer-stage") for r in got] == ["iteration"] * 3
    assert [r.json["iteration"] for r in got] == [1, 2, 3]


def test_no_url_means_no_delivery_and_no_error(paths: RunPaths) -> None:
    sender = WebhookSender(paths, settings(), url="")
    sender.send(payload())
    assert sender.close(1) == 0
    assert [r["type"] for r in read_jsonl(paths.webhooks)] == ["enqueued", "skipped"]


def test_a_resumed_sender_skips_delivered_and_sends_pending(paths: RunPaths) -> None:
    with Receiver() as rx:
        s1 = WebhookSender(paths, settings(), url=rx.url)
        s1.send(payload("baseline", 0))
        s1.close(5)
        # A process killed after enqueueing iteration 1 but before delivering it:
        enq = {
            "type": "enqueued",
            "webhook_id": f"msg_{RUN_ID}_iteration_1",
            "stage": "iteration",
            "iteration": 1,
            "payload": json.loads(payload().model_dump_json()),
            "at": "x",
        }
        with open(paths.webhooks, "a") as fh:
            fh.write(json.dumps(enq) + "\n")
        s2 = WebhookSender(paths, settings(), url=rx.url)
        assert s2.requeue_pending() == 1
        s2.send(payload("baseline", 0))  # the loop re-announcing: already delivered
        s2.close(5)
        got = rx.wait_for(2)
    assert [r.stage for r in got] == ["baseline", "iteration"]
    assert len(rx.received) == 2


def test_parse_retry_after() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


def test_cli_redeliver_sends_what_was_not_delivered(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    runs = tmp_path / "results" / "runs"
    paths = RunPaths(runs / RUN_ID)
    paths.dir.mkdir(parents=True)
    with Receiver(default=503) as down:  # the run's own deliveries all failed
        sender = WebhookSender(paths, settings(webhook_max_attempts=2), url=down.url)
        for ev in (payload("baseline", 0), payload("final", 1)):
            sender.send(ev)
        sender.close(5)
    assert len(rows(paths, "gave_up")) == 2
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CODREAMER_", "FRONTEND"))},
        "CODREAMER_RESULTS_DIR": str(tmp_path / "results"),
    }

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codreamer.cli", "webhooks", "redeliver", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    with Receiver() as rx:
        done = cli(RUN_ID, "--url", rx.url)
        assert done.returncode == 0, done.stderr
        assert [r.stage for r in rx.wait_for(2)] == ["baseline", "final"]
        again = cli(RUN_ID, "--url", rx.url)
        assert again.returncode == 0 and "nothing to redeliver" in again.stdout
        assert len(rx.received) == 2
    assert cli("../../etc", "--url", "http://127.0.0.1:9/").returncode == 2
    assert cli(RUN_ID).returncode == 2  # no FRONTEND_URL and no --url


def test_a_cli_run_without_receiver_keeps_its_webhooks_for_redelivery(tmp_path: Path) -> None:
    """`codreamer learn-loop` with no FRONTEND_URL delivers nothing, errs nothing, and
    records every payload so `webhooks redeliver --url` can send them later."""
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    run_id = "run-20250101-120000-fedcba"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CODREAMER_", "FRONTEND"))},
        "CODREAMER_RESULTS_DIR": str(tmp_path / "results"),
        "CODREAMER_DATA_DIR": str(repo / "data"),
        "RUN_ID": run_id,
    }
    cli = [sys.executable, "-m", "codreamer.cli"]
    loop = subprocess.run(
        [*cli, "learn-loop", "2", "3", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert loop.returncode == 0, loop.stderr
    paths = RunPaths(tmp_path / "results" / "runs" / run_id)
    assert [r["type"] for r in read_jsonl(paths.webhooks)].count("skipped") == 4
    env.pop("RUN_ID")
    bad = subprocess.run(
        [*cli, "webhooks", "redeliver", run_id, "--url", "notaurl"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "http://" in bad.stderr
    with Receiver() as rx:
        done = subprocess.run(
            [*cli, "webhooks", "redeliver", run_id, "--url", rx.url],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert [r.stage for r in rx.wait_for(4)] == ["baseline", "iteration", "iteration", "final"]
