"""The run manager on real run directories and real processes (no HTTP)."""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from pathlib import Path

import pytest

from codreamer.api.schemas import LearnLoopRequest
from codreamer.config import Settings
from codreamer.errors import QueueFullError, RunNotFoundError, RunStateError
from codreamer.graph.store import GraphStore
from codreamer.loop.config import LoopConfig
from codreamer.loop.run_files import create_run
from codreamer.models import Prospect, Scenario
from codreamer.runs.local.executor import LocalExecutor
from codreamer.runs.local.process import is_run_alive, run_lock
from codreamer.runs.spec import RunSpec
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths, new_run_id
from codreamer.train.config import GRPOConfig
from tests.support.event_gate import EventGate
from tests.support.paths import REPO

# Beside the checkout, or one level further up from a worktree (see tests/conftest.py).
_KG = REPO.parent / "shared" / "kg"
WEAVE = (_KG if _KG.is_dir() else REPO.parents[1] / "shared" / "kg") / "weave-feedback-5.json"


def _settings(tmp_path: Path, **kw: object) -> Settings:
    return Settings(results_dir=tmp_path / "results", data_dir=REPO / "data", **kw)  # type: ignore[arg-type]


def _config(**kw: object) -> LoopConfig:
    scenario = Scenario(prospect=Prospect(name="Alex Rivera", company="Acme"), goal="A call")
    return RunSpec(**{"iterations": 2, "group_size": 4, **kw}).loop_config([scenario])  # type: ignore[arg-type]


def _new_run(settings: Settings, status: str | None = None, **kw: object) -> RunPaths:
    paths = RunPaths.for_run(settings.runs_dir, new_run_id("api"))
    create_run(paths, GraphStore.from_json(json.loads(WEAVE.read_text())), _config(**kw))
    if status:
        update_meta(paths, status=status)
    return paths


def _hold_lock(run_dir: str, ready: mp.Event, release: mp.Event) -> None:  # type: ignore[valid-type]
    with run_lock(RunPaths(Path(run_dir))):
        ready.set()
        release.wait(30)


def test_recovery_marks_only_runs_without_a_live_process(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    dead_running = _new_run(settings, "running")
    dead_queued = _new_run(settings)
    finished = _new_run(settings, "succeeded")
    alive = _new_run(settings, "running")
    ctx = mp.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_lock, args=(str(alive.dir), ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        assert is_run_alive(alive) and not is_run_alive(dead_running)
        manager = LocalExecutor(settings)
        marked = manager.start()
        assert sorted(marked) == sorted([dead_running.run_id, dead_queued.run_id])
        assert read_meta(dead_running).status == "interrupted"
        assert read_meta(dead_queued).status == "interrupted"
        assert read_meta(finished).status == "succeeded"
        assert read_meta(alive).status == "running"
        # The other process ends without finishing the run: interrupted once it is gone.
        release.set()
        holder.join(10)
        deadline = time.monotonic() + 10
        while read_meta(alive).status != "interrupted":
            assert time.monotonic() < deadline, "an orphan's run was never marked"
            time.sleep(0.1)
        manager.shutdown()
    finally:
        release.set()
        holder.join(10)


def test_queue_limits_cancel_and_resume(tmp_path: Path) -> None:
    settings = _settings(tmp_path, max_concurrent_runs=1, max_queued_runs=1)
    manager = LocalExecutor(settings)  # not started: nothing leaves the queue
    created: list[str] = []

    def submit() -> str:
        run_id = new_run_id("api")
        paths = manager.new_paths(run_id)
        store = GraphStore.from_json(json.loads(WEAVE.read_text()))
        manager.submit(run_id, lambda: create_run(paths, store, _config()))
        created.append(run_id)
        return run_id

    first, second = submit(), submit()
    with pytest.raises(QueueFullError) as exc:
        submit()
    assert exc.value.retry_after == settings.queue_retry_after_s
    assert len(list(settings.runs_dir.iterdir())) == 2  # the refused one wrote nothing

    assert manager.queue_position(second) == 2
    assert manager.cancel(second) == "cancelled"
    assert read_meta(manager.paths(second)).status == "cancelled"
    with pytest.raises(RunStateError):
        manager.cancel(second)
    with pytest.raises(RunStateError):
        manager.resume(first)  # queued already
    assert manager.resume(second) >= 0
    assert read_meta(manager.paths(second)).status == "queued"
    with pytest.raises(RunNotFoundError):
        manager.paths("api-20990101-000000-abcdef")


def test_a_started_manager_runs_queued_runs_to_the_end(tmp_path: Path) -> None:
    gate = EventGate()
    # Every run shows its last event (written after its status) at the gate.
    gate.hold(lambda _run, e: e["type"] == "run_finished")
    settings = _settings(tmp_path, max_concurrent_runs=2, test_event_gate=gate.path)
    manager = LocalExecutor(settings)
    manager.start()
    try:
        ids = []
        for seed in range(3):
            run_id = new_run_id("api")
            paths = manager.new_paths(run_id)
            store = GraphStore.from_json(json.loads(WEAVE.read_text()))
            manager.submit(
                run_id, lambda p=paths, s=store, k=seed: create_run(p, s, _config(seed=k))
            )
            ids.append(run_id)
        finished = []
        for _ in ids:
            held = gate.next_held(timeout=120)
            finished.append(held.run_id)
            held.release()
        assert sorted(finished) == sorted(ids)
        assert [read_meta(manager.paths(r)).status for r in ids] == ["succeeded"] * 3
    finally:
        manager.shutdown()
        gate.close()


def test_request_bounds_are_the_run_spec_s() -> None:
    """Each run setting is declared once (RunSettings): the API schema shows its bounds
    and meaning, and LoopConfig (what meta.json stores) is made of the same fields."""

    def bounds(model: type, name: str) -> tuple[object, object]:
        meta = model.model_fields[name].metadata
        ge = next((m.ge for m in meta if getattr(m, "ge", None) is not None), None)
        le = next((m.le for m in meta if getattr(m, "le", None) is not None), None)
        return ge, le

    for name in ("iterations", "depth", "group_size", "seed"):
        assert bounds(LearnLoopRequest, name) == bounds(RunSpec, name) != (None, None)
        assert bounds(LoopConfig, name) == bounds(RunSpec, name)
        spec_doc = RunSpec.model_fields[name].description
        assert LearnLoopRequest.model_fields[name].description == spec_doc
    assert "group_size" not in GRPOConfig.model_fields and "seed" not in GRPOConfig.model_fields
