"""Webhook delivery against a real receiving HTTP server on loopback: the outbox, the
schedule, one event never holding back another, and pending events surviving the
process that produced them."""

from __future__ import annotations

import base64
import json
import os
import threading
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook

from codreamer.config import Settings
from codreamer.models import FinalEmail, WebhookPayload
from codreamer.retry_after import parse_retry_after
from codreamer.store.files import read_jsonl
from codreamer.store.paths import RunPaths
from codreamer.webhooks.dispatcher import Dispatcher
from codreamer.webhooks.outbox import read_outbox, summarize
from codreamer.webhooks.redeliver import redeliver
from codreamer.webhooks.schedule import next_delay, parse_schedule
from tests.support.cli import run_cli
from tests.support.paths import REPO
from tests.support.receiver import Receiver

RUN_ID = "api-20250101-120000-abcdef"


def settings(**kw: object) -> Settings:
    base: dict[str, object] = {
        "webhook_schedule": "0,0.1,0.2,0.2,0.2,0.2",
        "webhook_timeout_s": 1.0,
        "webhook_drain_timeout_s": 5.0,
        "webhook_secret": None,
        "frontend_url": None,
    }
    base.update(kw)
    return Settings(**base)  # type: ignore[arg-type]


def payload(stage: str = "iteration", iteration: int = 1, run_id: str = RUN_ID) -> WebhookPayload:
    return WebhookPayload(
        run_id=run_id,
        stage=stage,  # type: ignore[arg-type]
        iteration=iteration,
        iterations=2,
        final_email=FinalEmail(subject="Hi", body="Body", citations=["Customer Job"]),
        node_scores={"Customer Job": 0.7, "Product Feature": 0.9},
        metrics={"mean": 0.5, "max": 0.8},
    )


@pytest.fixture
def paths(tmp_path: Path) -> RunPaths:
    p = RunPaths(tmp_path / "runs" / RUN_ID)
    p.dir.mkdir(parents=True)
    return p


def rows(paths: RunPaths, kind: str) -> list[dict]:
    return [r for r in read_jsonl(paths.webhooks) if r["type"] == kind]


def send(paths: RunPaths, s: Settings, url: str, events: list[WebhookPayload], drain: float = 5):
    d = Dispatcher.for_run(paths, s, url=url)
    for ev in events:
        d.enqueue(ev)
    return d.close(drain)


WHSEC = "whsec_" + base64.b64encode(b"k" * 24).decode()


def test_schedule_parsing_and_delays() -> None:
    assert parse_schedule("0, 5,300") == (0.0, 5.0, 300.0)
    for bad in ("", "1,,2", "a", "-1", "inf"):
        with pytest.raises(ValueError):
            parse_schedule(bad)
    s = (0.0, 5.0, 300.0)
    assert next_delay(s, 1) == 5.0
    assert next_delay(s, 1, retry_after=60) == 60.0  # never sooner than the receiver asks
    assert next_delay(s, 2, retry_after=1) == 300.0
    assert next_delay(s, 3) is None  # exhausted: give up
    # The default spans hours, Svix-like.
    assert sum(parse_schedule(Settings().webhook_schedule)) >= 10 * 3600
    with pytest.raises(ValueError, match="CODREAMER_WEBHOOK_SCHEDULE|webhook_schedule"):
        Settings(webhook_schedule="soon")  # type: ignore[call-arg]


@pytest.mark.parametrize("secret", ["plain-secret", WHSEC])
def test_each_event_is_delivered_with_stable_id_and_verifiable_signature(
    paths: RunPaths, secret: str
) -> None:
    events = [payload("baseline", 0), payload("iteration", 1), payload("final", 2)]
    with Receiver() as rx:
        assert send(paths, settings(webhook_secret=secret), rx.url, events) == 0
        got = rx.wait_for(3)
    raw = base64.b64encode(secret.encode()).decode()
    verifier = Webhook(secret) if secret.startswith("whsec_") else Webhook(raw)
    by_id = {r.headers["webhook-id"]: r for r in got}
    assert len(got) == 3
    for ev in events:
        r = by_id[f"msg_{RUN_ID}_{ev.stage}_{ev.iteration}"]
        assert r.headers["content-type"] == "application/json"
        assert r.headers["x-codreamer-stage"] == ev.stage
        assert verifier.verify(r.body, r.headers) == ev.model_dump(mode="json")
    assert len(rows(paths, "delivered")) == 3
    assert summarize(read_outbox(paths.webhooks))["delivered"] == 3


def test_unsigned_when_no_secret_but_the_id_is_always_sent(paths: RunPaths) -> None:
    with Receiver() as rx:
        send(paths, settings(), rx.url, [payload()])
        (r,) = rx.wait_for(1)
    assert "webhook-signature" not in r.headers
    assert r.headers["webhook-id"] == f"msg_{RUN_ID}_iteration_1"


def test_500_then_503_then_200_follows_the_schedule_with_one_id(paths: RunPaths) -> None:
    with Receiver(statuses=[500, 503]) as rx:
        send(paths, settings(webhook_schedule="0,0.3,0.3"), rx.url, [payload()])
    assert [r.status for r in rx.received] == [500, 503, 200]
    assert len({r.headers["webhook-id"] for r in rx.received}) == 1
    gaps = [b.at - a.at for a, b in zip(rx.received, rx.received[1:], strict=False)]
    assert all(g >= 0.28 for g in gaps), gaps
    attempts = rows(paths, "attempt")
    assert [a["status_code"] for a in attempts] == [500, 503, 200]
    assert attempts[0]["next_delay_s"] == 0.3 and attempts[-1]["next_delay_s"] is None
    assert rows(paths, "delivered")[0]["attempts"] == 3


def test_a_4xx_is_not_retried_and_shows_as_given_up(paths: RunPaths) -> None:
    with Receiver(default=410) as rx:
        send(paths, settings(), rx.url, [payload()])
    assert len(rx.received) == 1
    summary = summarize(read_outbox(paths.webhooks))
    assert summary["failed"] == 1 and summary["pending"] == 0
    (given_up,) = summary["given_up"]
    assert given_up["status_code"] == 410 and "not retried" in given_up["reason"]


def test_the_schedule_bounds_the_attempts(paths: RunPaths) -> None:
    with Receiver(default=500) as rx:
        send(paths, settings(webhook_schedule="0,0.05,0.05"), rx.url, [payload()])
    assert len(rx.received) == 3
    (gave_up,) = rows(paths, "gave_up")
    assert gave_up["attempts"] == 3 and "gave up after 3" in gave_up["reason"]


def test_retry_after_is_honoured(paths: RunPaths) -> None:
    with Receiver(statuses=[429], retry_after="1") as rx:
        send(paths, settings(webhook_schedule="0,0.05,0.05"), rx.url, [payload()])
    first, second = rx.received
    assert second.at - first.at >= 0.95
    assert rows(paths, "attempt")[0]["next_delay_s"] == 1.0


def test_one_failing_or_hanging_event_never_holds_back_the_others(paths: RunPaths) -> None:
    """The baseline hangs and then 500s forever; every later event still arrives, and
    before the baseline's first attempt has even ended."""
    release = threading.Event()

    def respond(body: dict) -> int:
        if body["stage"] == "baseline":
            release.wait(30)  # until the others have arrived
            return 500
        return 200

    events = [payload("baseline", 0), payload("iteration", 1), payload("final", 1)]
    with Receiver(respond=respond) as rx:
        d = Dispatcher.for_run(paths, settings(webhook_timeout_s=3), url=rx.url)
        for ev in events:
            d.enqueue(ev)
        got = rx.wait_for(2, timeout=30)
        assert not release.is_set()  # the baseline's first attempt is still hanging
        release.set()
        d.close(0)
    assert sorted(r.stage for r in got) == ["final", "iteration"]


def test_pending_events_survive_their_process_and_go_out_exactly_once(tmp_path: Path) -> None:
    """Two runs' dispatchers stop while the receiver is down; later two independent
    store-wide dispatchers (as after a restart, or two servers) share the store:
    every event arrives, exactly once per webhook-id, with no manual step."""
    runs = tmp_path / "runs"
    ids = ["api-20250101-120000-aaaaaa", "api-20250101-120000-bbbbbb"]
    s = settings(webhook_schedule="0,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2")
    rx = Receiver(down_for_s=1.0)
    for run_id in ids:
        p = RunPaths(runs / run_id)
        p.dir.mkdir(parents=True)
        evs = [payload("baseline", 0, run_id), payload("iteration", 1, run_id)]
        assert send(p, s, rx.url, [*evs, payload("final", 1, run_id)], drain=0) == 3
    rx.start()
    a = Dispatcher.for_store(runs, s, url=rx.url).start()
    b = Dispatcher.for_store(runs, s, url=rx.url).start()
    try:
        rx.wait_for(6, timeout=30)
    finally:
        a.close()
        b.close()
        rx.settle()  # both senders stopped: a duplicate, if any, is in now
        rx.stop()
    ids_seen = rx.ok_ids()
    assert len(ids_seen) == 6 and len(set(ids_seen)) == 6
    for run_id in ids:
        assert summarize(read_outbox(RunPaths(runs / run_id).webhooks))["delivered"] == 3


def test_no_url_records_skipped_and_delivers_nothing(paths: RunPaths) -> None:
    d = Dispatcher.for_run(paths, settings(), url="")
    d.enqueue(payload())
    assert d.close(1) == 0
    assert [r["type"] for r in read_jsonl(paths.webhooks)] == ["enqueued", "skipped"]


def test_a_resumed_run_re_announcing_events_adds_nothing(paths: RunPaths) -> None:
    with Receiver() as rx:
        send(paths, settings(), rx.url, [payload("baseline", 0)])
        send(paths, settings(), rx.url, [payload("baseline", 0), payload("iteration", 1)])
        rx.wait_for(2)
        rx.settle()  # both sends have drained: anything extra has arrived
    assert sorted(r.stage for r in rx.received) == ["baseline", "iteration"]
    assert len(rows(paths, "enqueued")) == 2


def test_redeliver_sends_what_was_not_acknowledged(paths: RunPaths) -> None:
    with Receiver(default=400) as down:
        send(paths, settings(), down.url, [payload("baseline", 0), payload("final", 1)])
    assert len(rows(paths, "gave_up")) == 2
    with Receiver() as ok:
        results = redeliver(paths, settings(), url=ok.url)
        got = ok.wait_for(2)
    assert all(r.delivered for r in results)
    assert [r.stage for r in got] == ["baseline", "final"]  # in order
    assert summarize(read_outbox(paths.webhooks))["delivered"] == 2


def test_parse_retry_after() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CODREAMER_", "FRONTEND"))},
        "CODREAMER_RESULTS_DIR": str(tmp_path / "results"),
        "CODREAMER_DATA_DIR": str(REPO / "data"),
        **extra,
    }


def test_cli_redeliver_and_dispatch(tmp_path: Path) -> None:
    runs = tmp_path / "results" / "runs"
    paths = RunPaths(runs / RUN_ID)
    paths.dir.mkdir(parents=True)
    with Receiver(default=404) as down:  # the run's own deliveries all failed
        send(paths, settings(), down.url, [payload("baseline", 0), payload("final", 1)])
    env = _env(tmp_path)
    with Receiver() as rx:
        done = run_cli("webhooks", "redeliver", RUN_ID, "--url", rx.url, base=env)
        assert done.returncode == 0, done.stderr
        assert sorted(r.stage for r in rx.wait_for(2)) == ["baseline", "final"]
        again = run_cli("webhooks", "redeliver", RUN_ID, "--url", rx.url, base=env)
        assert again.returncode == 0 and "nothing to redeliver" in again.stdout
        assert len(rx.received) == 2
    assert (
        run_cli(
            "webhooks", "redeliver", "../../etc", "--url", "http://127.0.0.1:9/", base=env
        ).returncode
        == 2
    )
    assert run_cli("webhooks", "redeliver", RUN_ID, base=env).returncode == 2  # no receiver
    assert run_cli("webhooks", "dispatch", "--url", "ftp://x", base=env).returncode == 2

    # A second run whose process stopped with its events pending (receiver down):
    other = RunPaths(runs / "api-20250101-120000-cccccc")
    other.dir.mkdir()
    s = settings(webhook_schedule="0,0.2,0.2,0.2")
    with Receiver(default=503) as failing:
        assert send(other, s, failing.url, [payload("final", 1, other.run_id)], drain=0) == 1
    with Receiver() as rx:
        env = _env(tmp_path, CODREAMER_WEBHOOK_SCHEDULE="0,0.2,0.2,0.2")
        done = run_cli("webhooks", "dispatch", "--url", rx.url, "--until-idle", base=env)
        assert done.returncode == 0, done.stderr
        assert rx.ok_ids() == [f"msg_{other.run_id}_final_1"]
        assert "delivered 1" in done.stderr


def test_a_cli_run_without_receiver_keeps_its_webhooks_for_redelivery(tmp_path: Path) -> None:
    """`codreamer learn-loop` with no FRONTEND_URL delivers nothing, errs nothing, and
    records every payload so `webhooks redeliver --url` can send them later."""
    run_id = "run-20250101-120000-fedcba"
    env = _env(tmp_path, RUN_ID=run_id)
    loop = run_cli("learn-loop", "2", "3", "--json", base=env)
    assert loop.returncode == 0, loop.stderr
    paths = RunPaths(tmp_path / "results" / "runs" / run_id)
    assert [r["type"] for r in read_jsonl(paths.webhooks)].count("skipped") == 4
    env.pop("RUN_ID")
    bad = run_cli("webhooks", "redeliver", run_id, "--url", "notaurl", base=env)
    assert bad.returncode == 2 and "http://" in bad.stderr
    with Receiver() as rx:
        done = run_cli("webhooks", "redeliver", run_id, "--url", rx.url, base=env)
        assert done.returncode == 0, done.stderr
        got = rx.wait_for(4)
        assert [r.stage for r in got] == ["baseline", "iteration", "iteration", "final"]
    assert json.loads(loop.stdout)["run_id"] == run_id
