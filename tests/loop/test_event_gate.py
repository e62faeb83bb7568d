"""The test hook itself (codreamer/store/gate.py): a run's events wait at the gate
until the test answers, and a gate that is gone lets everything through."""

from __future__ import annotations

import threading
from pathlib import Path

from codreamer.store.events import EventLog
from codreamer.store.gate import EventGate as RunSide
from tests.support.event_gate import EventGate


def test_an_event_waits_at_the_gate_until_released(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    with EventGate() as gate:
        gate.hold(lambda run, e: e["type"] == "step_started")
        log.gate = RunSide(gate.path, "run-20260101-000000-abcdef")
        done = threading.Event()

        def emit() -> None:
            log.emit("run_started")  # not held
            log.emit("step_started", iteration=1)
            done.set()

        threading.Thread(target=emit, daemon=True).start()
        held = gate.next_held(timeout=10)
        assert held.run_id == "run-20260101-000000-abcdef" and held.event["seq"] == 2
        # Held after it is on disk, before the run goes on.
        assert (tmp_path / "events.jsonl").read_text().count("\n") == 2
        assert not done.is_set()
        held.release()
        assert done.wait(10)
    assert [e["type"] for _, e in gate.seen] == ["run_started", "step_started"]


def test_a_gate_that_is_gone_lets_everything_through(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    log.gate = RunSide(tmp_path / "nobody-listens", "run-20260101-000000-abcdef")
    log.emit("run_started")
    log.emit("run_finished")
    assert (tmp_path / "events.jsonl").read_text().count("\n") == 2
