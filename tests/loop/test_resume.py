"""Kill a real learn-loop process with SIGKILL mid-iteration, resume it, and get the
same files as an uninterrupted run; after any kill every file is valid JSON/JSONL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codreamer.store.files import read_jsonl
from tests.support.cli import codreamer_argv
from tests.support.event_gate import EventGate
from tests.support.paths import REPO

# Big groups make an iteration last long enough to be killed in the middle.
ARGS = ["3", "5", "--group-size", "128", "--seed", "11", "--json"]


def _env(results: Path, run_id: str, gate: EventGate | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        CODREAMER_RESULTS_DIR=str(results),
        CODREAMER_DATA_DIR=str(REPO / "data"),
        RUN_ID=run_id,
        **(gate.env if gate else {}),
    )
    env.pop("FRONTEND_URL", None)
    return env


def _learn_loop(graph: Path) -> list[str]:
    return codreamer_argv("learn-loop", *ARGS, "--graph", str(graph))


def _stop_at(
    gate: EventGate, proc: subprocess.Popen, pred: Callable[[dict[str, Any]], bool]
) -> None:
    """Hold the run at the first event `pred` accepts (it waits there, the event on
    disk), then leave it for the caller to kill or interrupt."""
    gate.hold(lambda _run, e: pred(e))
    held = gate.next_held(timeout=120)
    assert held.pid == proc.pid and proc.poll() is None
    gate.hold(None)


def _kill_at(
    gate: EventGate, proc: subprocess.Popen, pred: Callable[[dict[str, Any]], bool]
) -> None:
    _stop_at(gate, proc, pred)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def _assert_all_valid(run_dir: Path) -> None:
    for p in run_dir.iterdir():
        if p.name.startswith("."):
            continue  # a temp file of an interrupted atomic write, removed on resume
        if p.suffix == ".json":
            json.loads(p.read_text())
        elif p.suffix == ".jsonl":
            for line in p.read_text().splitlines()[:-1]:  # a torn last line is tolerated
                json.loads(line)
            read_jsonl(p)


@pytest.mark.e2e
def test_sigkill_mid_iteration_then_resume_matches_uninterrupted(
    tmp_path: Path, shared_kg: Path
) -> None:
    graph = shared_kg / "synthetic-data-16.json"
    results = tmp_path / "results"
    ref_id, run_id = "run-20260101-000000-aaaaaa", "run-20260101-000000-bbbbbb"

    ref = subprocess.run(
        _learn_loop(graph),
        env=_env(results, ref_id),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ref.returncode == 0, ref.stderr
    ref_dir = results / "runs" / ref_id

    with EventGate() as gate:
        proc = subprocess.Popen(
            _learn_loop(graph),
            env=_env(results, run_id, gate),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _kill_at(
            gate,
            proc,
            lambda e: (
                e.get("type") == "step_started"
                and e.get("iteration") == 2
                and e.get("step") == "score"
            ),
        )
    run_dir = results / "runs" / run_id
    _assert_all_valid(run_dir)
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["status"] == "running"  # what a dead process leaves; the API reports it interrupted
    assert not (run_dir / "iter2_email.json").exists()

    env = _env(results, run_id)
    env.pop("RUN_ID")
    resumed = subprocess.run(
        codreamer_argv("learn-loop", "--resume", run_id, "--json"),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert summary["status"] == "succeeded"

    compared = 0
    for ref_file in sorted(ref_dir.glob("iter*")) + [ref_dir / "final_email.json"]:
        mine = run_dir / ref_file.name
        assert mine.exists(), ref_file.name
        assert mine.read_bytes() == ref_file.read_bytes(), ref_file.name
        compared += 1
    assert compared == 3 * 4 + 4 * 3 + 1
    types = [e["type"] for e in read_jsonl(run_dir / "events.jsonl")]
    assert "run_resumed" in types and types[-1] == "run_finished"


@pytest.mark.e2e
@pytest.mark.parametrize("kill_after_events", [3, 11, 24])
def test_files_valid_after_kill_at_any_point(
    tmp_path: Path, shared_kg: Path, kill_after_events: int
) -> None:
    graph = shared_kg / "synthetic-data-16.json"
    results = tmp_path / "results"
    run_id = f"run-20260101-000000-{kill_after_events:06x}"
    with EventGate() as gate:
        proc = subprocess.Popen(
            _learn_loop(graph),
            env=_env(results, run_id, gate),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _kill_at(gate, proc, lambda e: e.get("seq", 0) >= kill_after_events)
    run_dir = results / "runs" / run_id
    assert len(read_jsonl(run_dir / "events.jsonl")) >= kill_after_events
    _assert_all_valid(run_dir)


@pytest.mark.e2e
def test_ctrl_c_marks_the_run_interrupted_and_says_how_to_resume(
    tmp_path: Path, shared_kg: Path
) -> None:
    results = tmp_path / "results"
    run_id = "run-20260101-000000-cccccc"
    run_dir = results / "runs" / run_id
    with EventGate() as gate:
        proc = subprocess.Popen(
            _learn_loop(shared_kg / "synthetic-data-16.json"),
            env=_env(results, run_id, gate),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Held just after iteration 1 is written: Ctrl-C lands there, not wherever
        # the scheduler happens to let the test run.
        _stop_at(
            gate, proc, lambda e: e.get("type") == "iteration_finished" and e.get("iteration") == 1
        )
        assert (run_dir / "iter1_email.json").exists()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert f"codreamer learn-loop --resume {run_id}" in err
    assert json.loads((run_dir / "meta.json").read_text())["status"] == "interrupted"
    _assert_all_valid(run_dir)


def test_resume_refuses_options_it_would_ignore(tmp_path: Path) -> None:
    env = _env(tmp_path / "results", "run-20260101-000000-dddddd")
    env.pop("RUN_ID")
    cmd = codreamer_argv("learn-loop", "2", "--seed", "5")
    cmd += ["--resume", "run-20260101-000000-dddddd"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "drop iterations, seed" in out.stderr
