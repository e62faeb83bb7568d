"""Early stop on convergence (DESIGN §2): a run whose last `patience` iterations
improved nothing and whose groups all collapsed ends early, says so, and a resumed
run ends where an uninterrupted one did, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codreamer.config import Settings
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_scenarios
from codreamer.loop.learn_loop import run_learn_loop
from codreamer.loop.local import new_local_run
from codreamer.runs.spec import RunSpec
from codreamer.store.files import read_jsonl
from codreamer.store.meta import update_meta
from codreamer.store.paths import RunPaths
from codreamer.train.config import GRPOConfig

ITERATIONS, PATIENCE = 30, 2
# A trainer that sharpens fast and does not fight it: the policy settles on one
# email within a few iterations, so the run converges. Exploration is off: uniform
# explorers, polishers and redrawn repeats keep a group's rewards spread, so with
# them a group seldom collapses (what they are for), and the stop rule needs
# collapsed groups.
GREEDY_LEARNER = GRPOConfig(
    learning_rate=2.0,
    entropy_coef=0.0,
    temperature_growth=1.0,
    explore_share=0.0,
    polish_share=0.0,
    avoid_repeats=False,
)


@pytest.fixture
def settings(tmp_path: Path, repo_root: Path) -> Settings:
    return Settings(
        CODREAMER_RESULTS_DIR=tmp_path / "results", CODREAMER_DATA_DIR=repo_root / "data"
    )


def _new(settings: Settings, repo_root: Path, patience: int = PATIENCE) -> RunPaths:
    store = GraphStore.from_json(json.loads((repo_root / "data" / "graph.json").read_text()))
    scenario = load_scenarios(repo_root / "data" / "scenarios.json")[0]
    spec = RunSpec(iterations=ITERATIONS, group_size=4, seed=2, patience=patience)
    return new_local_run(settings, store, spec.loop_config([scenario], grpo=GREEDY_LEARNER))


def _files(paths: RunPaths) -> dict[str, bytes]:
    names = sorted(p.name for p in paths.dir.glob("iter*")) + ["final_email.json"]
    return {n: (paths.dir / n).read_bytes() for n in names}


def test_a_converged_run_stops_early_and_says_so(settings: Settings, repo_root: Path) -> None:
    paths = _new(settings, repo_root)
    assert run_learn_loop(paths, settings=settings).status == "succeeded"
    final = json.loads(paths.final_email.read_text())
    last = final["metrics"]["iterations_run"]
    assert final["metrics"]["stopped_early"] is True and last < ITERATIONS
    assert not paths.email(last + 1).exists()
    # The stop rule, read back from what the iterations recorded.
    for k in range(last - PATIENCE + 1, last + 1):
        m = json.loads(paths.email(k).read_text())["metrics"]
        assert m["improved"] is False and m["frac_reward_zero_std"] == 1.0
    assert final["greedy_email"]["iteration"] == last
    events = read_jsonl(paths.events)
    converged = [e for e in events if e["type"] == "run_converged"]
    assert len(converged) == 1 and converged[0]["iteration"] == last
    assert converged[0]["patience"] == PATIENCE
    assert events[-1]["type"] == "run_finished"

    # Patience 0 turns it off: the same run goes the whole way.
    full = _new(settings, repo_root, patience=0)
    assert run_learn_loop(full, settings=settings).status == "succeeded"
    assert full.email(ITERATIONS).exists()
    assert not any(e["type"] == "run_converged" for e in read_jsonl(full.events))
    # Up to the stop, both runs are the same run.
    for k in range(last + 1):
        assert full.email(k).read_bytes() == paths.email(k).read_bytes()


@pytest.mark.parametrize("keep", ["all iterations", "half"])
def test_a_resumed_run_stops_where_the_uninterrupted_one_did(
    settings: Settings, repo_root: Path, keep: str
) -> None:
    ref = _new(settings, repo_root)
    assert run_learn_loop(ref, settings=settings).status == "succeeded"
    last = json.loads(ref.final_email.read_text())["metrics"]["iterations_run"]

    run = _new(settings, repo_root)
    assert run_learn_loop(run, settings=settings).status == "succeeded"
    # Interrupted after iteration `upto` (every later file gone, as after a kill
    # between iterations): "all iterations" is a kill just before the final email.
    upto = last if keep == "all iterations" else last // 2

    def later(name: str) -> bool:
        return name.startswith("iter") and int(name[4:].split("_")[0]) > upto

    for p in run.dir.iterdir():
        if p.name in ("final_email.json", "eval_report.json") or later(p.name):
            p.unlink()
    update_meta(run, status="interrupted")
    assert run_learn_loop(run, settings=settings).status == "succeeded"
    assert _files(run) == _files(ref)
    types = [e["type"] for e in read_jsonl(run.events)]
    assert types.count("run_resumed") == 1 and types[-1] == "run_finished"
    assert "run_converged" in types[types.index("run_resumed") :]
