"""The run's progress log (codreamer/store/events.py): its terminal event stays last."""

from __future__ import annotations

from pathlib import Path

from codreamer.store.events import EventLog
from codreamer.store.files import read_jsonl


def test_a_delivery_that_settles_after_the_run_ended_does_not_follow_its_terminal_event(
    tmp_path: Path,
) -> None:
    # The run's process drains its webhooks after the loop has logged run_finished;
    # readers of the log (the API's stream, `codreamer status`) stop at that event.
    log = EventLog(tmp_path / "events.jsonl")
    log.emit("run_started")
    log.emit_event({"type": "webhook_delivered", "webhook_id": "msg_a", "stage": "baseline"})
    log.emit("run_finished")
    log.emit_event({"type": "webhook_delivered", "webhook_id": "msg_b", "stage": "final"})
    lines = read_jsonl(tmp_path / "events.jsonl")
    assert [e["type"] for e in lines] == ["run_started", "webhook_delivered", "run_finished"]
    assert [e["seq"] for e in lines] == [1, 2, 3]
    # A resumed run's writer starts a new chapter after the old terminal event.
    again = EventLog(tmp_path / "events.jsonl")
    again.emit("run_resumed")
    again.emit_event({"type": "webhook_delivered", "webhook_id": "msg_b", "stage": "final"})
    types = [e["type"] for e in read_jsonl(tmp_path / "events.jsonl")]
    assert types[-2:] == ["run_resumed", "webhook_delivered"]
