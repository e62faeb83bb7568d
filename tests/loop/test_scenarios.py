"""Which prospects a run trains on and holds out (DESIGN §2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codreamer.errors import ScenarioError
from codreamer.loaders import load_scenarios
from codreamer.loop.scenarios import NEUTRAL_READER, notes, plan_scenarios
from codreamer.models import Prospect, Scenario


def test_sample_scenarios_are_many_varied_and_split(repo_root: Path) -> None:
    samples = load_scenarios(repo_root / "data" / "scenarios.json")
    assert len(samples) >= 8
    train, held = plan_scenarios([], samples, own_graph=False)
    assert len(train) >= 4 and len(held) >= 4 and not {s.id for s in train} & {s.id for s in held}
    assert len({s.prospect.title for s in samples}) == len(samples)
    assert len({s.prospect.industry for s in samples}) >= 6
    assert all(s.prospect.notes for s in samples)


def test_own_graph_without_scenario_writes_to_a_neutral_reader(repo_root: Path) -> None:
    samples = load_scenarios(repo_root / "data" / "scenarios.json")
    assert plan_scenarios([], samples, own_graph=True) == ([NEUTRAL_READER], [])
    mine = Scenario(id="mine", prospect=Prospect(name="Kim"), goal="Book a call")
    assert plan_scenarios([mine], samples, own_graph=True) == ([mine], [])
    train, held = plan_scenarios([mine], samples, own_graph=False)
    assert train == [mine] and held and all(s.held_out for s in held)
    held_mine = mine.model_copy(update={"held_out": True})
    # Alone, a held-out prospect is trained on (and nothing else held out).
    train, held = plan_scenarios([held_mine], samples, own_graph=True)
    assert [s.id for s in train] == ["mine"] and not train[0].held_out and held == []
    other = held_mine.model_copy(update={"id": "other"})
    with pytest.raises(ScenarioError, match="nothing to train on.*alone.*not held out"):
        plan_scenarios([held_mine, other], samples, own_graph=True)
    with pytest.raises(ScenarioError, match="duplicate"):
        plan_scenarios([mine, mine], samples, own_graph=True)


def test_cli_trains_on_several_scenarios_and_says_who(tmp_path: Path, repo_root: Path) -> None:
    files = []
    for i, name in enumerate(("Ana Lima", "Bo Chen")):
        f = tmp_path / f"s{i}.json"
        f.write_text(json.dumps({"id": f"s{i}", "prospect": {"name": name}, "goal": "Book a call"}))
        files.append(str(f))
    graph = repo_root.parent / "shared" / "kg" / "weave-feedback-5.json"
    cmd = [
        str(Path(sys.executable).parent / "codreamer"),
        "learn-loop",
        "1",
        "--json",
        "--group-size",
        "4",
    ]
    cmd += ["--graph", str(graph), "--scenario", files[0], "--scenario", files[1]]
    env = {"CODREAMER_RESULTS_DIR": str(tmp_path / "r"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(cmd, cwd=repo_root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert [p["name"] for p in out["prospects"]] == ["Ana Lima", "Bo Chen"]
    run = Path(out["results_path"])
    groups = [
        json.loads(line) for line in (run / "iter1_step1_groups.jsonl").read_text().splitlines()
    ]
    assert [g["scenario_id"] for g in groups] == ["s0", "s1"]
    assert out["final_iteration"] in (0, 1)
    # The final email is the best judged; the trained policy's greedy one is beside it.
    assert out["final_reward"] >= out["greedy_reward"]
    assert isinstance(out["final_from_greedy"], bool) and out["greedy_email"]["body"]
    assert out["stopped_early"] is False and out["iterations_run"] == 1
    final = json.loads((run / "final_email.json").read_text())
    assert [p["scenario_id"] for p in final["per_prospect"]] == ["s0", "s1"]
    assert final["per_prospect"][0]["reward"] == final["reward"]
    assert all(isinstance(p["name"], str) and p["name"] for p in final["per_prospect"])
    # the request's own graph and no scenario: a neutral reader, no sample prospect
    cmd = [
        str(Path(sys.executable).parent / "codreamer"),
        "learn-loop",
        "1",
        "--json",
        "--group-size",
        "4",
    ]
    cmd += ["--graph", str(graph)]
    done = subprocess.run(cmd, cwd=repo_root, env=env, capture_output=True, text=True, check=False)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert [p["scenario_id"] for p in out["prospects"]] == ["neutral-reader"]
    # a neutral reader is greeted without a name, in either register
    assert out["final_email"]["body"].splitlines()[0] in ("Hello,", "Hi,", "Good day,")


def test_a_held_out_sample_alone_trains_on_itself_and_says_so(repo_root: Path) -> None:
    samples = load_scenarios(repo_root / "data" / "scenarios.json")
    sample = next(s for s in samples if s.held_out)
    train, held = plan_scenarios([sample], samples, own_graph=False)
    assert [s.id for s in train] == [sample.id] and held == []
    said = notes(train, samples)
    assert len(said) == 1 and sample.id in said[0] and "trains on it" in said[0]
    ordinary = next(s for s in samples if not s.held_out)
    assert notes([ordinary], samples) == []
