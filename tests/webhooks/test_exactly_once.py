"""Exactly once per webhook-id, with every kind of sender racing on the same outboxes.

A real uvicorn receiver counts every request it gets. Against it, at the same time:
each run's own dispatcher, four store-wide dispatchers in this process (as in API
processes), two `codreamer webhooks dispatch` processes and a `redeliver` of every
run. The receiver answers 503 to the first attempt of some events, so retries race
too. Every event must be acknowledged exactly once, and every request the receiver
saw must be an attempt recorded in the outbox (nothing sent behind its back)."""

from __future__ import annotations

import hashlib
import itertools
import os
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

from codreamer.config import Settings
from codreamer.models import FinalEmail, WebhookPayload
from codreamer.store.files import read_jsonl
from codreamer.store.paths import RunPaths
from codreamer.webhooks.claims import FileClaims
from codreamer.webhooks.dispatcher import STORE_POLL_S, Dispatcher
from codreamer.webhooks.outbox import Outbox, read_outbox
from codreamer.webhooks.redeliver import redeliver
from codreamer.webhooks.schedule import parse_schedule
from tests.support.cli import codreamer_argv
from tests.support.paths import REPO
from tests.support.receiver import IdReceiver, Receiver
from tests.support.server import serve_in_thread

SCHEDULE = "0,0.1,0.1,0.1,0.1,0.1,0.1,0.1"
RUN_IDS = [f"api-20250101-120000-{c * 6}" for c in "abcd"]
EVENTS_PER_RUN = 16


def half_fail_first(webhook_id: str, seen: int) -> int:
    """503 on the first attempt of about half the events (decided by the id, so it does
    not depend on timing), 200 otherwise."""
    return 503 if seen == 0 and hashlib.sha1(webhook_id.encode()).digest()[0] % 2 else 200


def _payload(run_id: str, k: int) -> WebhookPayload:
    stage = "baseline" if k == 0 else "final" if k == EVENTS_PER_RUN - 1 else "iteration"
    return WebhookPayload(
        run_id=run_id,
        stage=stage,  # type: ignore[arg-type]
        iteration=k,
        iterations=EVENTS_PER_RUN - 1,
        final_email=FinalEmail(subject=f"Hi {k}", body="Body", citations=["Customer Job"]),
        node_scores={"Customer Job": 0.7, "Product Feature": 0.9},
        metrics={"mean": 0.5, "max": 0.8},
    )


def _cli_dispatch(tmp_path: Path, url: str) -> subprocess.Popen[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CODREAMER_", "FRONTEND"))},
        "CODREAMER_RESULTS_DIR": str(tmp_path / "results"),
        "CODREAMER_DATA_DIR": str(REPO / "data"),
        "CODREAMER_WEBHOOK_SCHEDULE": SCHEDULE,
    }
    return subprocess.Popen(
        codreamer_argv("webhooks", "dispatch", "--url", url,
         "--until-idle"),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def test_racing_senders_deliver_each_webhook_id_exactly_once(tmp_path: Path) -> None:
    runs = tmp_path / "results" / "runs"
    settings = Settings(  # type: ignore[call-arg]
        webhook_schedule=SCHEDULE, webhook_timeout_s=5.0, webhook_secret=None, frontend_url=None
    )
    all_paths = [RunPaths(runs / run_id) for run_id in RUN_IDS]
    for paths in all_paths:
        paths.dir.mkdir(parents=True)
        outbox = Outbox(paths, parse_schedule(SCHEDULE))
        for k in range(EVENTS_PER_RUN):
            outbox.enqueue(_payload(paths.run_id, k))
    total = len(RUN_IDS) * EVENTS_PER_RUN
    rx = IdReceiver(half_fail_first, delay_s=0.003)

    with serve_in_thread(rx.app) as base:
        url = f"{base}/hook"
        procs = [_cli_dispatch(tmp_path, url) for _ in range(2)]
        dispatchers = [Dispatcher.for_store(runs, settings, url=url) for _ in range(4)]
        dispatchers += [Dispatcher.for_run(p, settings, url=url) for p in all_paths]
        for d in dispatchers:
            d.start()
        redelivered: list[int] = []
        manual = threading.Thread(
            target=lambda: redelivered.extend(
                len(redeliver(p, settings, url=url, claims=FileClaims())) for p in all_paths
            )
        )
        manual.start()
        try:
            rx.wait_until(lambda reqs: sum(s == 200 for _, s in reqs) >= total, timeout=60)
            manual.join(60)
            for proc in procs:
                _, err = proc.communicate(timeout=60)
                assert proc.returncode == 0, err
        finally:
            left = [d.close() for d in dispatchers]
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
        # Every sender has ended (threads joined, processes exited), and a sender records
        # an attempt only once it is answered: what the receiver has answered is all.
        rx.wait_idle()

    acknowledged = rx.by_id(200)
    assert len(acknowledged) == total, f"{total - len(acknowledged)} event(s) never delivered"
    twice = {w: n for w, n in acknowledged.items() if n > 1}
    assert not twice, f"acknowledged more than once: {twice}"
    assert left == [0] * len(dispatchers)
    assert rx.by_id(503), "the receiver's 503s should have made some events retry"
    # Every request the receiver saw is an attempt row of the outbox, and vice versa.
    seen = rx.by_id()
    for paths in all_paths:
        events = read_outbox(paths.webhooks)
        assert [ev.status for ev in events.values()] == ["delivered"] * EVENTS_PER_RUN
        attempts = Counter(
            r["webhook_id"] for r in read_jsonl(paths.webhooks) if r["type"] == "attempt"
        )
        assert attempts == Counter({w: seen[w] for w in events})
        assert not list(paths.dir.glob(".webhook-claim-*"))  # no claim left behind


class CountingClaims(FileClaims):
    def __init__(self) -> None:
        self.granted = 0
        self.refused: list[float] = []  # when each refusal happened
        self._changed = threading.Condition()

    def claim(self, paths: RunPaths, webhook_id: str):  # type: ignore[no-untyped-def]
        release = super().claim(paths, webhook_id)
        with self._changed:
            if release is None:
                self.refused.append(time.monotonic())
            else:
                self.granted += 1
            self._changed.notify_all()
        return release

    def wait_refused(self, n: int, timeout: float = 30.0) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.refused) >= n, timeout)


def test_an_event_in_flight_is_not_sent_by_another_sender(tmp_path: Path) -> None:
    """While one sender's POST hangs, another dispatcher (it sees the event pending and
    due) and a redelivery leave it alone; once it is acknowledged nobody sends it."""
    gate, arrived, first_arrived = threading.Event(), [], threading.Event()

    def respond(body: object) -> int:
        arrived.append(body)  # on arrival (Receiver.received is filled on answering)
        first_arrived.set()
        return 200 if gate.wait(30) else 500

    rx = Receiver(respond=respond)
    paths = RunPaths(tmp_path / "runs" / RUN_IDS[0])
    paths.dir.mkdir(parents=True)
    Outbox(paths, parse_schedule(SCHEDULE)).enqueue(_payload(paths.run_id, 0))
    settings = Settings(  # type: ignore[call-arg]
        webhook_schedule=SCHEDULE, webhook_timeout_s=5.0, webhook_secret=None, frontend_url=None
    )
    with rx:
        first = Dispatcher.for_store(paths.dir.parent, settings, url=rx.url).start()
        assert first_arrived.wait(30)
        assert list(paths.dir.glob(".webhook-claim-*"))  # held while the POST is out
        tries = CountingClaims()
        second = Dispatcher.for_store(paths.dir.parent, settings, url=rx.url, claims=tries)
        second.start()
        tries.wait_refused(3)  # three of second's passes saw the event due
        assert len(arrived) == 1 and tries.granted == 0
        # It tried, and was refused, once a poll: never in a tight loop while it waits
        # (a gap can only grow under load, so this bound holds on a busy machine).
        gaps = [b - a for a, b in itertools.pairwise(tries.refused[:3])]
        assert min(gaps) >= 0.8 * STORE_POLL_S, gaps
        gate.set()
        assert first.close(5) == 0 and second.close(5) == 0
        assert redeliver(paths, settings, url=rx.url) == []  # delivered: nothing to send
        assert len(arrived) == 1 and [r.status for r in rx.received] == [200]
    assert first.delivered + second.delivered == 1
    assert not list(paths.dir.glob(".webhook-claim-*"))
