"""Learning that matters (issue 11) on the sample graph: after 5 iterations on the
training prospects, each held-out prospect gets an email close to its own oracle,
and prospects whose notes point to different parts of the graph get different
arguments (a fixed strategy could not)."""

from __future__ import annotations

import json
from pathlib import Path

from codreamer.config import Settings
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_scenarios
from codreamer.loop.learn_loop import run_learn_loop
from codreamer.loop.local import new_local_run
from codreamer.runs.spec import RunSpec
from codreamer.train.config import GRPOConfig
from codreamer.train.oracle import oracle


def test_held_out_prospects_get_their_own_argument_near_their_oracle(
    tmp_path: Path, repo_root: Path
) -> None:
    store = GraphStore.from_json(json.loads((repo_root / "data" / "graph.json").read_text()))
    scenarios = load_scenarios(repo_root / "data" / "scenarios.json")
    train = [s for s in scenarios if not s.held_out]
    held = [s for s in scenarios if s.held_out]
    settings = Settings(
        CODREAMER_RESULTS_DIR=tmp_path / "results", CODREAMER_DATA_DIR=repo_root / "data"
    )
    config = RunSpec(iterations=5, depth=5, seed=0).loop_config(train, held)
    paths = new_local_run(settings, store, config)
    result = run_learn_loop(paths, settings=settings)
    assert result.status == "succeeded", result.error
    report = json.loads(paths.eval_report.read_text())
    by_id = {r["scenario_id"]: r for r in report["results"]}
    ratios = {s.id: by_id[s.id]["reward"] / oracle(store, s, 5).reward for s in held}
    assert min(ratios.values()) >= 0.85, ratios
    assert sum(ratios.values()) / len(ratios) >= 0.93, ratios
    arguments = {tuple(by_id[s.id]["citations"]) for s in held}
    assert len(arguments) >= 2, arguments


def test_a_run_on_several_prospects_and_none_held_out_writes_each_its_email(
    tmp_path: Path, repo_root: Path
) -> None:
    """What a user training on their own prospects gets back: every prospect's email
    (eval_report.json, split "training"), each on the argument its notes point to."""
    store = GraphStore.from_json(json.loads((repo_root / "data" / "graph.json").read_text()))
    train = [s for s in load_scenarios(repo_root / "data" / "scenarios.json") if not s.held_out]
    settings = Settings(
        CODREAMER_RESULTS_DIR=tmp_path / "results", CODREAMER_DATA_DIR=repo_root / "data"
    )
    paths = new_local_run(settings, store, RunSpec(iterations=5, seed=1).loop_config(train))
    assert run_learn_loop(paths, settings=settings).status == "succeeded"
    report = json.loads(paths.eval_report.read_text())
    assert report["split"] == "training"
    by_id = {r["scenario_id"]: r for r in report["results"]}
    assert set(by_id) == {s.id for s in train}
    for s in train:
        r = by_id[s.id]
        assert r["body"].startswith(("Hi ", "Hello ", "Dear "))
        assert s.prospect.first_name in r["body"]
        assert r["reward"] >= 0.85 * oracle(store, s, 5).reward, (s.id, r["reward"])
    assert len({tuple(r["citations"]) for r in by_id.values()}) >= 2


def test_a_single_prospect_run_ends_with_its_policy_writing_its_best_email(
    tmp_path: Path, repo_root: Path
) -> None:
    """The CFO preset (issue 22): the run's best email was often found by exploration;
    self-imitation makes the trained policy's own greedy email that email by the end,
    and it stands within 3% of the oracle."""
    store = GraphStore.from_json(json.loads((repo_root / "data" / "graph.json").read_text()))
    cfo = next(
        s
        for s in load_scenarios(repo_root / "data" / "scenarios.json")
        if s.id == "harborfresh-finance"
    )
    settings = Settings(
        CODREAMER_RESULTS_DIR=tmp_path / "results", CODREAMER_DATA_DIR=repo_root / "data"
    )
    paths = new_local_run(settings, store, RunSpec(seed=0).loop_config([cfo]))
    assert run_learn_loop(paths, settings=settings).status == "succeeded"
    final = json.loads(paths.final_email.read_text())
    assert final["greedy_email"]["reward"] == final["reward"], final["metrics"]
    assert final["greedy_email"]["email"] == final["email"]
    assert final["reward"] >= 0.97 * oracle(store, cfo, RunSpec().depth).reward


def test_a_first_greedy_email_that_is_the_best_is_not_learned_away(
    tmp_path: Path, repo_root: Path
) -> None:
    """The fleet preset, seed 3: the untrained policy's greedy email (iteration 0) is
    better than anything the first group samples (a property of the seed and the
    judge: when the judge changes, find a seed where it holds again). It is offered
    to self-imitation like a sampled email, so the trained policy still writes it at
    the end. Polishers are off: they search around that email and, on this seed,
    find a better one, which is the point of them but not of this test."""
    store = GraphStore.from_json(json.loads((repo_root / "data" / "graph.json").read_text()))
    fleet = next(
        s for s in load_scenarios(repo_root / "data" / "scenarios.json") if s.id == "coldpath-fleet"
    )
    settings = Settings(
        CODREAMER_RESULTS_DIR=tmp_path / "results", CODREAMER_DATA_DIR=repo_root / "data"
    )
    config = RunSpec(iterations=5, seed=3).loop_config([fleet], grpo=GRPOConfig(polish_share=0.0))
    paths = new_local_run(settings, store, config)
    assert run_learn_loop(paths, settings=settings).status == "succeeded"
    baseline = json.loads(paths.email(0).read_text())
    # Better than the whole first group, explorers included; later groups sample it.
    first = [json.loads(line)["reward"] for line in paths.rewards_per_traj(1).open()]
    assert baseline["reward"] > max(first)
    final = json.loads(paths.final_email.read_text())
    assert final["reward"] == baseline["reward"]
    assert final["greedy_email"]["email"] == baseline["email"]
