"""Embedded policy features: relevance is general word matching, so a policy that
values it walks each prospect to the part of the graph their notes talk about."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codreamer.agent.policies.embedded import NODE_FEATURES, STYLE_CONTEXT, EmbeddedPolicy
from codreamer.agent.policies.features import prospect_context, stems
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_graph
from codreamer.models import CUSTOMER_JOB, Prospect, Scenario


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


def _two_node_graph(facts: dict[str, str]) -> GraphStore:
    nodes: list[dict[str, Any]] = [
        {"id": CUSTOMER_JOB, "content": "Labs that train image models"},
        {"id": "Product Feature", "content": "Lensfold checks every augmented image."},
    ]
    for nid, text in facts.items():
        nodes[0].setdefault("edge", []).append(
            {"target_id": nid, "relationship": "faces", "rationale": ""}
        )
        nodes.append(
            {
                "id": nid,
                "content": text,
                "edge": [
                    {"target_id": "Product Feature", "relationship": "solved by", "rationale": ""}
                ],
            }
        )
    return GraphStore.from_json(nodes)


def test_a_node_the_writer_cannot_tell_matches_nothing() -> None:
    """A bare noun phrase is never told, so its words cannot be what the walk goes to it
    for: its matches are zero and `tellable` says why, while a told fact with the same
    words matches."""
    store = _two_node_graph(
        {
            "noun": "Methods used to enlarge an image dataset by creating modified copies",
            "told": "Rotation and cropping by hand are slow ways to enlarge an image dataset "
            "with copies",
        }
    )
    sf = EmbeddedPolicy(store).scenario_features(_sc("We enlarge each image dataset with copies"))
    tell = NODE_FEATURES.index("tellable")
    assert sf.static("noun")[tell] == 0.0 and not sf.rel("noun").any()
    assert sf.static("told")[tell] == 1.0 and sf.rel("told")[0] > 0.0
    # A textbook statement lectures the reader on their own field: never told either.
    store = _two_node_graph(
        {"lecture": "Rotation and cropping are used to enlarge an image dataset with copies"}
    )
    sf = EmbeddedPolicy(store).scenario_features(_sc("We enlarge each image dataset with copies"))
    assert sf.static("lecture")[tell] == 0.0 and not sf.rel("lecture").any()


def test_a_node_told_through_the_reason_on_its_edge_still_matches() -> None:
    """The reader's own work ("Validates data quality by ...") is never told back, but
    when a walk holds no fact, the reason an edge gives for the customer is told in
    its place (weave-5's middle): such a node keeps its matches."""
    store = GraphStore.from_json(
        [
            {"id": CUSTOMER_JOB, "content": "Generates synthetic data for LLM pre-training.",
             "edge": [{"target_id": "Validation", "relationship": "has process",
                       "rationale": "For nuanced LLM tasks, automated metrics are often "
                       "insufficient."}]},
            {"id": "Validation", "content": "Validates data quality by evaluating models "
             "trained on it.",
             "edge": [{"target_id": "Product Feature", "relationship": "solved by",
                       "rationale": ""}]},
            {"id": "Product Feature", "content": "Weave provides a feedback system."},
        ]
    )  # fmt: skip
    sf = EmbeddedPolicy(store).scenario_features(_sc("Our automated metrics miss data quality"))
    assert sf.static("Validation")[NODE_FEATURES.index("tellable")] == 1.0
    assert sf.rel("Validation")[0] > 0.0


def test_a_stem_in_most_of_the_graph_matches_no_node_in_particular() -> None:
    """ "data" in a data graph is in nearly every node: a Data Scientist's title matches
    each alike, so it says nothing about which to walk to; a rarer title word does."""
    store = _two_node_graph(
        {
            "a": "Image data grows when teams create rotated copies of it",
            "b": "Data labelling costs rise as annotation data volumes grow",
            "c": "Data drift makes older evaluation data misleading for scientists",
        }
    )
    sf = EmbeddedPolicy(store).scenario_features(_sc("", "Senior Data Scientist"))
    title = 1  # rel_title, after rel_notes
    assert sf.rel("a")[title] == sf.rel("b")[title] == 0.0
    assert sf.rel("c")[title] == 1.0  # "scientists"


def test_an_agent_saved_before_a_node_feature_was_added_still_loads() -> None:
    """What an agent learned outlives an upgrade: a state without a newer node feature
    loads with that feature's weight at zero, everything else where it was."""
    store = _two_node_graph({"a": "Rotation and cropping enlarge an image dataset"})
    policy = EmbeddedPolicy(store)
    rng = np.random.default_rng(0)
    policy.theta = rng.normal(size=policy.theta.size)
    policy.personal["s"] = rng.normal(size=policy.own_size)
    state = policy.state_dict()
    k = NODE_FEATURES.index("tellable")
    old = {
        **state,
        "node_features": [f for f in NODE_FEATURES if f != "tellable"],
        "theta": state["theta"][:k] + state["theta"][k + 1 :],
        "personal": {"s": state["personal"]["s"][:k] + state["personal"]["s"][k + 1 :]},
    }
    other = EmbeddedPolicy(store)
    other.load_state_dict(old)
    want = policy.theta.copy()
    want[k] = 0.0
    assert np.array_equal(other.theta, want)
    own = policy.personal["s"].copy()
    own[k] = 0.0
    assert np.array_equal(other.personal["s"], own)
    with pytest.raises(ValueError, match="different version"):
        other.load_state_dict({**old, "node_features": [*old["node_features"][:-1], "other"]})


def test_a_node_naming_the_readers_company_matches_nothing_for_them() -> None:
    """The writer never tells a reader a fact about their own company, so for a reader
    at that company the node is a bridge only; for a reader elsewhere it is a fact."""
    store = _two_node_graph(
        {"own": "Image datasets generated by Pearls of Wisdom are used to train models"}
    )
    notes = "Image datasets for training models"
    at = Scenario(id="at", goal="Book a call", prospect=Prospect(
        name="Ana Lima", title="ML Lead", company="Pearls of Wisdom", notes=notes))  # fmt: skip
    away = at.model_copy(update={"id": "away", "prospect": at.prospect.model_copy(
        update={"company": "Acme Vision"})})  # fmt: skip
    policy = EmbeddedPolicy(store)
    tell = NODE_FEATURES.index("tellable")
    sf_at, sf_away = policy.scenario_features(at), policy.scenario_features(away)
    assert sf_at.static("own")[tell] == 0.0 and not sf_at.rel("own").any()
    assert sf_away.static("own")[tell] == 1.0 and sf_away.rel("own")[0] > 0.0
