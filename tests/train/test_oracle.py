from __future__ import annotations

import json
from pathlib import Path

import pytest

from codreamer.agent.writer import write_email
from codreamer.errors import OracleTooLargeError
from codreamer.graph.store import GraphStore
from codreamer.judge.rubric import RubricJudge
from codreamer.loaders import load_scenarios
from codreamer.models import Prospect, Scenario
from codreamer.train.oracle import STYLES, oracle, walks
from tests.support.paths import REPO

# A prospect the Weave graph speaks to (the judge's reward depends on the reader, so a
# dairy VP reading about LLM feedback scores too low for any walk to be pruned).
ACME = Scenario(
    id="acme",
    prospect=Prospect(name="Alex Rivera", title="VP Engineering", company="Acme FinTech",
                      industry="FinTech", tech_stack=["Python"],
                      notes="Reviewers grade model outputs inconsistently."),
    goal="Secure a 20-minute discovery call",
)  # fmt: skip


def test_oracle_is_the_maximum_over_the_action_space(shared_kg: Path) -> None:
    store = GraphStore.from_json(json.loads((shared_kg / "weave-feedback-5.json").read_text()))
    scenario = ACME
    best = oracle(store, scenario, depth=5)
    judge = RubricJudge(store)
    brute = max(
        judge.judge(write_email(store, w, scenario, st), scenario).total
        for w in walks(store, "Customer Job", 5)
        for st in STYLES
    )
    assert best.reward == brute  # pruning never changes the answer
    assert best.walks == 5 and best.emails_judged <= 5 * len(STYLES)  # never more work
    assert best.path[0] == "Customer Job"
    assert best.reward == pytest.approx(RubricJudge(store).judge(best.email, scenario).total)
    # a shallower depth is a smaller action space: its best cannot be better
    assert oracle(store, scenario, depth=2).reward <= best.reward


def test_pruned_oracle_equals_brute_force_on_the_bigger_graphs(shared_kg: Path) -> None:
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[1]
    for path in (shared_kg / "synthetic-data-16.json", REPO / "data" / "graph.json"):
        store = GraphStore.from_json(json.loads(path.read_text()))
        judge = RubricJudge(store)
        brute = max(
            judge.judge(write_email(store, w, scenario, st), scenario).total
            for w in walks(store, "Customer Job", 4)
            for st in STYLES
        )
        assert oracle(store, scenario, depth=4).reward == brute


def test_walks_stop_at_product_feature(shared_kg: Path) -> None:
    store = GraphStore.from_json(json.loads((shared_kg / "synthetic-data-16.json").read_text()))
    for w in walks(store, "Customer Job", 6):
        assert "Product Feature" not in w[:-1]
        assert len(w) == len(set(w))


def test_cap_gives_a_clear_error(shared_kg: Path) -> None:
    store = GraphStore.from_json(json.loads((shared_kg / "synthetic-data-16.json").read_text()))
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    with pytest.raises(OracleTooLargeError, match="more than 100 emails"):
        oracle(store, scenario, depth=5, max_emails=100)
