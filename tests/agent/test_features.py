"""Embedded policy features: relevance is general word matching, so a policy that
values it walks each prospect to the part of the graph their notes talk about."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from codreamer.agent.policies.embedded import NODE_FEATURES, STYLE_CONTEXT, EmbeddedPolicy
from codreamer.agent.policies.features import prospect_context, stems
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.graph.scores import NodeScores
from codreamer.loaders import load_graph
from codreamer.models import Prospect, Scenario


def _sc(notes: str, title: str = "Operations Manager") -> Scenario:
    return Scenario(
        id=notes[:10],
        prospect=Prospect(name="Ana Lima", title=title, notes=notes),
        goal="Book a call",
    )


def test_stems_match_word_forms() -> None:
    assert stems("Audits, audited and auditing") == stems("audit")
    assert "recall" in stems("Recalls of a batch")


def test_seniority_and_function_from_the_title() -> None:
    ctx = dict(
        zip(STYLE_CONTEXT, prospect_context(_sc("", "Chief Financial Officer")), strict=True)
    )
    assert ctx["executive"] == 1.0 and ctx["finance"] == 1.0 and ctx["individual"] == 0.0
    ctx = dict(zip(STYLE_CONTEXT, prospect_context(_sc("", "Data Engineer")), strict=True))
    assert ctx["individual"] == 1.0 and ctx["technical"] == 1.0


def test_the_register_convention_is_an_input_of_its_own() -> None:
    """A FinOps manager shares "finance" with a CFO but is written to as a peer: the
    style heads see the convention itself, not only the seniority and function it
    follows from."""

    def ctx(title: str) -> dict[str, float]:
        return dict(zip(STYLE_CONTEXT, prospect_context(_sc("", title)), strict=True))

    cfo, finops = ctx("Chief Financial Officer"), ctx("FinOps Manager")
    assert cfo["finance"] == finops["finance"] == 1.0
    assert (cfo["expects_formal"], cfo["expects_peer"]) == (1.0, 0.0)
    assert (finops["expects_formal"], finops["expects_peer"]) == (0.0, 1.0)
    neither = ctx("Director of Logistics")  # a director in an informal industry: either
    assert neither["expects_formal"] == neither["expects_peer"] == 0.0


def test_valuing_relevance_walks_each_prospect_to_its_own_argument(repo_root: Path) -> None:
    """No per-node parameters: the same weights give different walks for different notes,
    on any graph."""
    store = load_graph(repo_root / "data" / "graph.json")
    policy = EmbeddedPolicy(store)
    theta = policy.theta.copy()
    w = dict(zip(NODE_FEATURES, range(len(NODE_FEATURES)), strict=True))
    theta[w["rel_notes"]] = 3.0
    theta[w["ahead_notes"]] = 3.0
    theta[w["reaches_feature"]] = 2.0
    policy.theta = theta
    tools = AgentTools(store, NodeScores(store.nodes))
    walks = {}
    for notes, must in (
        ("Auditors flagged gaps in our manual temperature logs.", "Manual Temperature Logs"),
        ("A recall took a week to trace every shipment of the batch.", "Recall Readiness"),
        ("Refrigeration units fail from worn compressors.", "Reefer Unit Failures"),
    ):
        sc = _sc(notes)
        env = RolloutEnv(store, tools, sc, 5)
        meta = TrajectoryMeta(trajectory_id="t", scenario_id=sc.id, iteration=0)
        t = rollout(policy, env, np.random.default_rng(0), meta, greedy=True)
        walks[notes] = t.final_email.citations
        assert must in t.final_email.citations, (notes, t.final_email.citations)
    assert len({tuple(w) for w in walks.values()}) == 3
