"""The judge refitted to a team's ratings (codreamer/loop/team_judge.py): what a
rating teaches beyond the very email rated."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from codreamer.agent.policies.embedded import EmbeddedPolicy
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.judge.agreement import spearman
from codreamer.judge.feedback import email_key
from codreamer.judge.rubric import RubricJudge
from codreamer.judge.rubric.total import default_total, unscored_of
from codreamer.loaders import load_scenarios
from codreamer.loop.team_judge import MIN_RATINGS, held_out, team_grades, team_total
from codreamer.store.agents import AgentPaths, log_emails
from codreamer.store.feedback import append_feedback
from tests.support.paths import REPO

AGENT = "team"


def taste(scores: dict[str, float]) -> float:
    """A team that grades by grounding alone (the default total weighs it 0.14 of
    ~15): a taste the judge measures but does not share."""
    return scores["grounding"]


def sampled_emails(store: GraphStore, n: int, seed: int) -> list[dict]:
    """n emails an untrained embedded policy samples for the sample prospects, judged."""
    scenarios = load_scenarios(REPO / "data" / "scenarios.json")[:4]
    policy, judge = EmbeddedPolicy(store), RubricJudge(store)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        sc = scenarios[i % len(scenarios)]
        env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), sc, 5)
        meta = TrajectoryMeta(trajectory_id=f"t{i}", scenario_id=sc.id, iteration=0)
        email = rollout(policy, env, rng, meta).final_email
        j = judge.judge(email, sc)
        scores = {k: c.score for k, c in j.criteria.items()}
        unscored = unscored_of({k: c.reason for k, c in j.criteria.items()})
        out.append({"email": email, "scenario": sc, "scores": scores, "unscored": unscored})
    return out


@pytest.fixture(scope="module")
def store() -> GraphStore:
    return GraphStore.from_json(json.loads((REPO / "data" / "graph.json").read_text()))


def rate(tmp_path: Path, rated: list[dict]) -> None:
    agent = AgentPaths(tmp_path, AGENT)
    log_emails(agent, [{
        "email_key": email_key(r["email"]), "email": r["email"].model_dump(),
        "scenario": r["scenario"].model_dump(mode="json"), "sender": None}
        for r in rated])  # fmt: skip
    for r in rated:
        value = taste(r["scores"])  # a 0-1 rating, as 1-5 stars map to (n - 1) / 4
        row = {"type": "human_preference", "email_key": email_key(r["email"]), "value": value}
        append_feedback(tmp_path, AGENT, row)


def test_a_taste_the_default_judge_does_not_share_is_learned_from_ratings(
    tmp_path: Path, store: GraphStore
) -> None:
    rate(tmp_path, sampled_emails(store, 160, seed=1))
    fitted, report = team_total(tmp_path, AGENT, store, None)
    assert report["judged"] >= MIN_RATINGS and report["adopted"], report
    assert fitted is not None
    assert report["spearman_after"] > report["spearman_before"], report
    # On ratings no fit saw, the refitted judge ranks as the team does, better than
    # the default did.
    fresh = sampled_emails(store, 60, seed=2)
    grades = [taste(r["scores"]) for r in fresh]
    before = spearman([default_total().total(r["scores"], r["unscored"]) for r in fresh], grades)
    after = spearman([fitted.total(r["scores"], r["unscored"]) for r in fresh], grades)
    assert after >= before + 0.15, (before, after)
    assert fitted.weights["grounding"] > default_total().weights["grounding"]


def test_too_few_ratings_keep_the_judge_and_say_why(tmp_path: Path, store: GraphStore) -> None:
    rate(tmp_path, sampled_emails(store, 12, seed=3))
    # A rating of an email the agent's log does not hold cannot be judged.
    append_feedback(
        tmp_path, AGENT, {"type": "human_preference", "email_key": "0" * 64, "value": 1}
    )
    fitted, report = team_total(tmp_path, AGENT, store, None)
    assert fitted is None and report["adopted"] is False
    assert report["threshold"] == MIN_RATINGS
    assert report["ratings"] > report["judged"] or report["judged"] == 0
    assert "reason" in report and str(MIN_RATINGS) in report["reason"]


def test_team_grades_average_each_emails_human_ratings_only() -> None:
    rows = [
        {"type": "human_preference", "email_key": "a", "value": 1.0},
        {"type": "human_preference", "email_key": "a", "value": 0.5},
        {"type": "human_preference", "email_key": "b", "value": 0.0},
        {"type": "human_preference", "email_key": "c", "value": 7},  # out of range
        {"type": "outcome", "email_key": "d", "value": 1.0},  # outcomes go to rewards
        {"type": "human_preference", "value": 1.0},  # no key
    ]
    assert team_grades(rows) == {"a": 4.0, "b": 1.0}


def test_the_held_out_share_is_fixed_by_the_key() -> None:
    keys = [f"{i:064x}" for i in range(2000)]
    share = sum(held_out(k) for k in keys) / len(keys)
    assert 0.2 < share < 0.3
    assert [held_out(k) for k in keys] == [held_out(k) for k in keys]
