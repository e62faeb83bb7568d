"""The learn-loop end to end on real files: artifacts, events, reproducibility."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codreamer.config import Settings
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_scenarios
from codreamer.loop.learn_loop import run_learn_loop
from codreamer.loop.local import new_local_run
from codreamer.loop.run_files import read_status
from codreamer.models import WebhookPayload
from codreamer.runs.spec import RunSpec
from codreamer.store.files import read_jsonl
from codreamer.store.paths import RunPaths
from tests.support.paths import REPO


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(CODREAMER_RESULTS_DIR=tmp_path / "results", CODREAMER_DATA_DIR=REPO / "data")


def _store(path: Path) -> GraphStore:
    return GraphStore.from_json(json.loads(path.read_text()))


def _run(settings: Settings, store: GraphStore, **kw) -> tuple[RunPaths, list, list]:
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    config = RunSpec(**kw).loop_config([scenario])
    paths = new_local_run(settings, store, config)
    events: list[dict] = []
    hooks: list[WebhookPayload] = []
    result = run_learn_loop(
        paths, on_event=events.append, on_webhook=hooks.append, settings=settings
    )
    assert result.status == "succeeded", result.error
    return paths, events, hooks


def test_artifacts_events_and_webhooks(settings: Settings, shared_kg: Path) -> None:
    paths, events, hooks = _run(
        settings, _store(shared_kg / "synthetic-data-16.json"), iterations=2, depth=5
    )
    names = {p.name for p in paths.dir.iterdir()}
    expected = {"meta.json", "graph.json", "events.jsonl", "final_email.json"}
    for k in (1, 2):
        expected |= {
            f"iter{k}_step1_groups.jsonl",
            f"iter{k}_step2_groups.jsonl",
            f"iter{k}_rewards_metrics.json",
            f"iter{k}_rewards_per_traj.jsonl",
            f"iter{k}_node_scores.json",
            f"iter{k}_email.json",
            f"iter{k}_policy.json",
        }
    assert expected <= names, expected - names
    # every file parses
    for p in paths.dir.iterdir():
        if p.suffix == ".json":
            json.loads(p.read_text())
        else:
            read_jsonl(p)
    # step 1 has group_size trajectories with OpenAI-format messages, step 2 adds rewards
    step1 = read_jsonl(paths.step1_groups(1))
    trajs = step1[0]["trajectories"]
    assert len(trajs) == 16
    roles = [m["role"] for m in trajs[0]["messages"]]
    assert roles[:3] == ["system", "user", "assistant"] and "tool" in roles
    assert all(t["reward"] is None for t in trajs)
    step2 = read_jsonl(paths.step2_groups(1))
    assert all(0.0 <= t["reward"] <= 1.0 for t in step2[0]["trajectories"])
    # webhooks: baseline, one per iteration, final
    assert [(h.stage, h.iteration) for h in hooks] == [
        ("baseline", 0),
        ("iteration", 1),
        ("iteration", 2),
        ("final", 2),
    ]
    assert set(hooks[-1].node_scores) == set(_store(shared_kg / "synthetic-data-16.json").nodes)
    # events: seq matches line numbers, terminal event last
    logged = read_jsonl(paths.events)
    assert [e["seq"] for e in logged] == list(range(1, len(logged) + 1))
    assert logged[-1]["type"] == "run_finished"
    assert [e["type"] for e in events] == [e["type"] for e in logged]
    status = read_status(paths)
    assert status["status"] == "succeeded"
    assert [m["iteration"] for m in status["metrics"]["iterations"]] == [0, 1, 2]
    assert status["latest_email"]["email"] == hooks[-1].final_email.model_dump()


def test_same_seed_same_files_other_seed_differs(settings: Settings, shared_kg: Path) -> None:
    store = _store(shared_kg / "synthetic-data-16.json")
    a, _, _ = _run(settings, store, iterations=3, depth=5, seed=7)
    b, _, _ = _run(settings, store, iterations=3, depth=5, seed=7)
    c, _, _ = _run(settings, store, iterations=3, depth=5, seed=8)
    pattern = [
        "iter*_email.json",
        "iter*_node_scores.json",
        "iter*_policy.json",
        "iter*_step2_groups.jsonl",
    ]
    files = sorted(p.name for pat in pattern for p in a.dir.glob(pat))
    assert len(files) == 4 * 3 + 3 * 1  # iter0..3 email/scores/policy + iter1..3 step2
    for name in files:
        assert (a.dir / name).read_bytes() == (b.dir / name).read_bytes(), name
    assert (a.dir / "iter1_step1_groups.jsonl").read_bytes() != (
        c.dir / "iter1_step1_groups.jsonl"
    ).read_bytes()


def test_runs_do_not_share_state(settings: Settings, shared_kg: Path, repo_root: Path) -> None:
    """Two runs on different graphs: each keeps its own graph copy and node scores."""
    data_graph = (repo_root / "data" / "graph.json").read_bytes()
    p1, _, h1 = _run(settings, _store(shared_kg / "weave-feedback-5.json"), iterations=1, depth=5)
    p2, _, h2 = _run(settings, _store(repo_root / "data" / "graph.json"), iterations=1, depth=3)
    assert set(h1[-1].node_scores) == set(
        json.loads((p1.graph).read_text())[i]["id"] for i in range(5)
    )
    assert set(h2[-1].node_scores).isdisjoint({"Process for Quality Validation"})
    assert json.loads(p2.graph.read_text())[0]["id"] == "Customer Job"
    # runs write their own copies; the project's graph file is never touched
    assert (repo_root / "data" / "graph.json").read_bytes() == data_graph


def test_final_email_is_the_best_email_judged_in_the_run(
    settings: Settings, shared_kg: Path
) -> None:
    """Every email the run judged (greedy and sampled) is a candidate; ties go to the
    later one; the trained policy's own greedy email is reported beside it."""
    store = _store(shared_kg / "synthetic-data-16.json")
    for seed in (0, 3):
        paths, events, hooks = _run(settings, store, iterations=3, depth=5, seed=seed)
        # The run's candidates in the order it judged them: (reward, iteration, greedy, email).
        cands = []
        for k in range(4):
            if k > 0:
                for row in read_jsonl(paths.step2_groups(k)):
                    for t in row["trajectories"]:
                        cands.append((t["reward"], k, False, t["final_email"]))
            g = json.loads(paths.email(k).read_text())
            cands.append((g["reward"], k, True, g["email"]))
        top = max(c[0] for c in cands)
        reward, k, greedy, email = [c for c in cands if c[0] == top][-1]
        final = json.loads(paths.final_email.read_text())
        assert (final["reward"], final["iteration"], final["greedy"]) == (reward, k, greedy)
        assert final["email"] == email
        last = json.loads(paths.email(3).read_text())
        assert final["greedy_email"]["email"] == last["email"]
        assert final["greedy_email"]["reward"] == last["reward"]
        assert final["reward"] >= max(
            json.loads(paths.email(j).read_text())["reward"] for j in range(4)
        )
        assert hooks[-1].stage == "final" and hooks[-1].iteration == 3
        assert hooks[-1].final_email.model_dump() == final["email"]
        m = hooks[-1].metrics
        assert m["from_iteration"] == k and m["from_greedy"] == float(greedy)
        assert m["final_reward"] == reward and m["greedy_reward"] == last["reward"]
        # Each iteration reports the share of groups with no reward spread.
        for j in (1, 2, 3):
            it = json.loads(paths.email(j).read_text())["metrics"]
            assert it["frac_reward_zero_std"] in (0.0, 1.0)
            assert it["best_reward"] <= top
        scored = [e for e in events if e["type"] == "step_finished" and e["step"] == "score"]
        assert len(scored) == 3 and all("frac_reward_zero_std" in e for e in scored)


def test_node_scores_start_neutral_and_only_cited_nodes_move(
    settings: Settings, repo_root: Path
) -> None:
    store = _store(repo_root / "data" / "graph.json")
    paths, _, _ = _run(settings, store, iterations=2, depth=5)
    assert set(json.loads(paths.node_scores(0).read_text()).values()) == {0.5}
    scores = json.loads(paths.node_scores(2).read_text())
    cited = {
        c for k in (1, 2) for row in read_jsonl(paths.rewards_per_traj(k)) for c in row["citations"]
    }
    assert cited and all(scores[n] != 0.5 for n in cited)
    assert all(v == 0.5 for n, v in scores.items() if n not in cited)


@pytest.mark.parametrize("trainer", ["grpo", "none"])
def test_step_3_is_reported_under_the_trainer_that_ran_it(
    settings: Settings, shared_kg: Path, trainer: str
) -> None:
    paths, events, _ = _run(
        settings, _store(shared_kg / "synthetic-data-16.json"), iterations=1, trainer=trainer
    )
    steps = [e["step"] for e in events if e["type"] == "step_started" and e["iteration"] == 1]
    assert steps == ["generate", "score", trainer, "kg_weights", "email"]
    done = next(e for e in events if e["type"] == "step_finished" and e["step"] == trainer)
    assert done["trainer"] == trainer
    on_disk = [e["step"] for e in read_jsonl(paths.events) if e["type"] == "step_started"]
    assert trainer in on_disk and ("grpo" in on_disk) == (trainer == "grpo")


def test_a_trainer_that_cannot_train_the_policy_is_named_with_what_is_allowed() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as info:
        RunSpec(policy="embedded", trainer="prompt")
    (err,) = info.value.errors()
    assert err["loc"] == ("trainer",)
    assert "allowed with policy embedded: grpo, none" in err["msg"]
    openai = RunSpec(policy="openai")
    assert openai.trainer == "prompt"  # the default by policy still fills in


def test_step_files_are_the_json_round_trip_of_each_trajectory(
    settings: Settings, shared_kg: Path
) -> None:
    from codreamer.agent.trajectory import Trajectory
    from codreamer.loop.records import groups_json, groups_jsonl

    paths, _, _ = _run(settings, _store(shared_kg / "synthetic-data-16.json"), iterations=1)
    rows = read_jsonl(paths.step2_groups(1))
    groups = [[Trajectory.model_validate(t) for t in r["trajectories"]] for r in rows]
    groups.append([t.model_copy(deep=True) for t in groups[0]])
    # A non-finite float where the model types a float: JSON has no such number, and
    # the round trip writes null; the fast path must not write -Infinity or NaN.
    groups[-1][0].logprobs = [float("-inf"), *groups[-1][0].logprobs]
    groups[-1][-1].reward = float("nan")
    reference = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in groups_json(groups, []))
    assert groups_jsonl(groups, []) == reference
    assert "Infinity" not in reference and "NaN" not in reference
    assert paths.step2_groups(1).read_text() == groups_jsonl(groups[:-1], [])


@pytest.mark.parametrize(
    ("trainer", "label"), [("prompt", "step 3 prompt"), ("grpo", "step 3 GRPO")]
)
def test_the_step_3_bar_is_named_and_moved_by_the_trainer_that_runs(
    trainer: str, label: str
) -> None:
    import io

    from rich.console import Console

    from codreamer.commands.progress import LoopProgress

    bars = LoopProgress(Console(file=io.StringIO()), iterations=2, trainer=trainer)
    task = bars.progress.tasks[bars.tasks["train"]]
    assert task.description == label
    bars({"type": "step_finished", "iteration": 1, "step": trainer})
    bars({"type": "step_finished", "iteration": 1, "step": "evaluate"})  # not a bar
    assert task.completed == 1
    assert all(t.completed == 0 for t in bars.progress.tasks if t is not task)
