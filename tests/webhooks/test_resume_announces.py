"""A run killed after an iteration's email is written, but before its webhook reaches
the outbox, still sends that webhook when it is resumed.

The iteration counts as done once its email is on disk, so the resumed run starts
after it; before this was fixed, that iteration's event was never sent (a cluster
test once counted 51 of 52 events after a worker was killed at a random moment).
A real `codreamer learn-loop` process is held at the exact event by the event gate
and SIGKILLed there; a real receiver counts what arrives."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from codreamer.store.files import read_jsonl
from codreamer.webhooks.outbox import read_outbox
from tests.support.cli import codreamer_argv
from tests.support.event_gate import EventGate
from tests.support.receiver import Receiver

REPO = Path(__file__).resolve().parents[2]
RUN_ID = "run-20260101-000000-5e5e5e"


def _env(results: Path, receiver: Receiver, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODREAMER_", "OPENAI_"))}
    env.update(
        CODREAMER_RESULTS_DIR=str(results),
        CODREAMER_DATA_DIR=str(REPO / "data"),
        FRONTEND_URL=receiver.url,
        **extra,
    )
    return env


def test_an_iteration_killed_between_its_email_and_its_webhook_still_sends_it(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    cli = codreamer_argv("learn-loop")
    with Receiver() as rx, EventGate() as gate:
        gate.hold(lambda _run, e: e["type"] == "iteration_finished" and e.get("iteration") == 1)
        proc = subprocess.Popen(
            [*cli, "2", "2", "--group-size", "2", "--seed", "5", "--json"],
            env=_env(results, rx, RUN_ID=RUN_ID, **gate.env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        held = gate.next_held(timeout=180)
        assert held.pid == proc.pid
        run_dir = results / "runs" / RUN_ID
        # The email of iteration 1 is on disk and its event is not in the outbox yet.
        assert (run_dir / "iter1_email.json").exists()
        assert {e.stage for e in read_outbox(run_dir / "webhooks.jsonl").values()} == {"baseline"}
        proc.send_signal(signal.SIGKILL)
        proc.wait()

        resumed = subprocess.run(
            [*cli, "--resume", RUN_ID, "--json"],
            env=_env(results, rx),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout.strip().splitlines()[-1])["status"] == "succeeded"
        rx.settle()  # both senders are gone: what reached the receiver is all

    expected = [
        f"msg_{RUN_ID}_{s}" for s in ("baseline_0", "iteration_1", "iteration_2", "final_2")
    ]
    assert sorted(rx.ok_ids()) == sorted(expected)  # each once, the lost one included
    outbox = read_outbox(run_dir / "webhooks.jsonl")
    assert {wid: ev.status for wid, ev in outbox.items()} == dict.fromkeys(expected, "delivered")
    types = [e["type"] for e in read_jsonl(run_dir / "events.jsonl")]
    assert "run_resumed" in types and types[-1] == "run_finished"
