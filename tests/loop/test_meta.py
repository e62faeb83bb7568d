"""The typed run store over meta.json: existing files load as they are (older config
layout, keys this version does not know), writes keep every key, and a value that
is not a run status never reaches the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from codreamer.loop.config import LoopConfig
from codreamer.loop.run_files import read_status
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths

OLD_META = {  # the shape runs were written in before RunSpec (group_size/seed in grpo)
    "run_id": "api-20250101-120000-abcdef",
    "status": "interrupted",
    "created_at": "2025-01-01T12:00:00Z",
    "updated_at": "2025-01-01T12:00:05Z",
    "started_at": "2025-01-01T12:00:01Z",
    "finished_at": None,
    "request": {"iterations": 2, "graph": "default"},
    "config": {
        "iterations": 2,
        "depth": 4,
        "scenario": {"id": "acme", "prospect": {"name": "Alex"}, "goal": "A call"},
        "scenarios": [{"id": "acme", "prospect": {"name": "Alex"}, "goal": "A call"}],
        "sender": {"name": "Sam Carter", "company": None, "title": None},
        "policy": "embedded",
        "trainer": "grpo",
        "judge": "rubric",
        "node_step": 0.1,
        "grpo": {"group_size": 8, "seed": 3, "epsilon": 0.2, "mu": 4},
        "feedback": {"alpha": 1.0, "beta": 0.5, "gamma": 0.5},
        "eval_scenarios": [],
        "model": None,
    },
    "seed": 3,
    "graph_hash": "abc",
    "graph_size": {"nodes": 5, "edges": 4},
    "feedback_path": None,
    "progress": {"iteration": 1, "iterations": 2, "step": "train", "fraction": 0.5},
    "metrics": {"iterations": [{"iteration": 1, "mean": 0.5}]},
    "error": None,
    "written_by_a_newer_version": {"kept": True},
}


@pytest.fixture
def paths(tmp_path: Path) -> RunPaths:
    p = RunPaths(tmp_path / OLD_META["run_id"])
    p.dir.mkdir()
    p.meta.write_text(json.dumps(OLD_META))
    return p


def test_an_existing_meta_json_reads_typed(paths: RunPaths) -> None:
    meta = read_meta(paths)
    assert (meta.status, meta.iterations, meta.iteration_metrics) == (
        "interrupted",
        2,
        [{"iteration": 1, "mean": 0.5}],
    )
    config = LoopConfig.from_meta(meta)
    assert (config.group_size, config.seed, config.depth) == (8, 3, 4)
    view = read_status(paths)["config"]
    assert (view["group_size"], view["seed"], view["scenario_id"]) == (8, 3, "acme")


def test_writes_keep_every_key_and_refuse_a_bad_status(paths: RunPaths) -> None:
    assert update_meta(paths, status="queued").status == "queued"
    raw = json.loads(paths.meta.read_text())
    assert raw["written_by_a_newer_version"] == {"kept": True}
    assert raw["config"] == OLD_META["config"]  # the config is never rewritten
    before = paths.meta.read_bytes()
    with pytest.raises(ValidationError):
        update_meta(paths, status="exploded")
    assert paths.meta.read_bytes() == before
