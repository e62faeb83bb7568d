"""GRPO maths: advantages, skipped groups, the analytic gradient, learning direction."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from codreamer.agent.policies.embedded import Decision, EmbeddedPolicy
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_scenarios
from codreamer.train.base import make_trainer
from codreamer.train.config import GRPOConfig
from codreamer.train.grpo import (
    GRPOTrainer,
    frac_reward_zero_std,
    group_advantages,
    next_temperature,
    same_walk_advantages,
)
from tests.support.paths import REPO


@pytest.fixture
def setup(shared_kg: Path):
    store = GraphStore.from_json(json.loads((shared_kg / "synthetic-data-16.json").read_text()))
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, 5)
    return store, scenario, env


def _group(policy, env, n, seed=0):
    rng = np.random.default_rng(seed)
    meta = TrajectoryMeta(trajectory_id="t", scenario_id="s", iteration=1)
    return [rollout(policy, env, rng, meta) for _ in range(n)]


def test_advantages_normalised_and_constant_groups_skipped() -> None:
    adv = group_advantages([0.2, 0.4, 0.6], 1e-4)
    assert adv is not None
    assert abs(float(adv.mean())) < 1e-12
    assert adv[0] < 0 < adv[2]
    assert group_advantages([0.5, 0.5, 0.5], 1e-4) is None  # never divides by zero
    assert group_advantages([0.5], 1e-4) is None


def test_style_decisions_are_credited_against_the_same_walk() -> None:
    """Two walks, two rollouts each, plus one walk taken once. Walk A's rollouts
    score alike, so their styles earn nothing even though A beats the group mean;
    walk B's better-written rollout earns what it gained over its twin; the lone
    walk keeps its group advantage."""
    rewards = [0.9, 0.9, 0.3, 0.5, 0.6]
    walks = [("cj", "a", "pf"), ("cj", "a", "pf"), ("cj", "b", "pf"), ("cj", "b", "pf"), ("cj",)]
    group = group_advantages(rewards, 1e-4)
    assert group is not None and group[0] > 0
    style = same_walk_advantages(rewards, walks, group, 1e-4)
    std = float(np.std(rewards)) + 1e-4
    assert style[0] == style[1] == 0.0
    assert style[2] == pytest.approx(-0.1 / std) and style[3] == pytest.approx(0.1 / std)
    assert style[4] == group[4]


def test_embedded_groups_pair_rollouts_on_one_walk(setup) -> None:
    """Members 2k and 2k+1 of an embedded group walk alike and choose their styles
    apart, so the style heads get like-for-like comparisons; pairs differ."""
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    metas = [TrajectoryMeta(trajectory_id=f"t{j}", scenario_id="s", iteration=1) for j in range(16)]
    group = policy.rollout_group(env, np.random.default_rng(3), metas)
    walks = [tuple(t.final_email.citations) for t in group]
    styles = [t.metadata.style for t in group]
    assert all(walks[j] == walks[j + 1] for j in range(0, 16, 2))
    assert len(set(walks[0::2])) > 1  # pairs explore different walks
    assert any(styles[j] != styles[j + 1] for j in range(0, 16, 2))
    again = policy.rollout_group(env, np.random.default_rng(3), metas)
    assert [t.final_email for t in again] == [t.final_email for t in group]  # reproducible


def test_equal_reward_groups_are_counted_and_leave_policy_unchanged(setup) -> None:
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    group = _group(policy, env, 8)
    for t in group:
        t.reward = 0.7
    before = policy.theta.copy()
    stats = GRPOTrainer(policy, GRPOConfig(entropy_coef=0.0)).step(policy, [group])
    assert stats["skipped_groups"] == 1.0 and stats["updates"] == 0.0
    assert stats["frac_reward_zero_std"] == 1.0
    assert np.array_equal(before, policy.theta)


def _mean_entropy(policy, group) -> float:
    hs = [policy.entropy_and_dlogits(d, policy.theta)[0] for t in group for d in t.decisions]
    return float(np.mean(hs))


def test_entropy_bonus_keeps_a_collapsed_policy_exploring(setup) -> None:
    """A sharpened policy whose group wrote one email: the rewards teach nothing,
    but the entropy bonus widens its choices again."""
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    policy.theta = np.random.default_rng(7).normal(0, 3.0, policy.theta.shape)
    group = _group(policy, env, 8)
    for t in group:
        t.reward = 0.7
    before = _mean_entropy(policy, group)
    stats = GRPOTrainer(policy, GRPOConfig(entropy_coef=0.5)).step(policy, [group])
    assert stats["skipped_groups"] == 1.0 and stats["updates"] > 0.0
    assert stats["entropy"] > 0.0
    assert _mean_entropy(policy, group) > before


def test_entropy_gradient_matches_finite_differences(setup) -> None:
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    policy.theta = np.random.default_rng(3).normal(0, 0.5, policy.theta.shape)
    policy.temperature = 1.7
    traj = _group(policy, env, 1, seed=5)[0]
    for d in (next(x for x in traj.decisions if x.head == head) for head in ("node", "angle")):
        h, dh = policy.entropy_and_dlogits(d, policy.theta)
        grad = np.zeros_like(policy.theta)
        policy.add_grad(d, dh, 1.0, grad)
        eps = 1e-6
        for i in np.flatnonzero(grad)[:12]:
            t = policy.theta.copy()
            t[i] += eps
            h2, _ = policy.entropy_and_dlogits(d, t)
            assert math.isclose((h2 - h) / eps, grad[i], rel_tol=1e-3, abs_tol=1e-6)


def test_sampling_and_scoring_share_the_temperature(setup) -> None:
    """The logprob recorded when sampling at T is the one the update re-scores at T,
    so the first epoch's ratio is exactly 1; a hotter policy samples more walks."""
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    policy.theta = np.random.default_rng(1).normal(0, 2.0, policy.theta.shape)
    policy.temperature = 2.5
    group = _group(policy, env, 4, seed=9)
    for d in (d for t in group for d in t.decisions):
        lp, _ = policy.logprob_and_dlogits(d, policy.theta)
        assert math.isclose(lp, d.logprob, abs_tol=1e-9)
    policy.temperature = 1.0
    cold = {_walked(t) for t in _group(policy, env, 64, seed=2)}
    policy.temperature = 4.0
    hot = {_walked(t) for t in _group(policy, env, 64, seed=2)}
    assert len(hot) > len(cold)


def test_frac_reward_zero_std_and_the_temperature_schedule(setup) -> None:
    class T:
        def __init__(self, r):
            self.reward = r

    flat, spread = [T(0.5), T(0.5)], [T(0.2), T(0.6)]
    assert frac_reward_zero_std([flat, spread, flat, spread]) == 0.5
    assert frac_reward_zero_std([]) == 0.0
    cfg = GRPOConfig(temperature=1.0, temperature_growth=2.0, max_temperature=3.0)
    assert next_temperature(1.0, 1.0, cfg) == 2.0  # collapsed: hotter
    assert next_temperature(2.0, 1.0, cfg) == 3.0  # capped
    assert next_temperature(3.0, 0.0, cfg) == 1.5  # spread again: cools down
    assert next_temperature(1.5, 0.25, cfg) == 1.0  # never below the base

    # The trainer raises the temperature after a collapsed iteration, hands it to the
    # policy, and checkpoints it.
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    trainer = GRPOTrainer(policy, cfg)
    group = _group(policy, env, 8)
    for t in group:
        t.reward = 0.4
    stats = trainer.step(policy, [group])
    assert stats["temperature"] == 1.0 and stats["next_temperature"] == 2.0
    assert policy.temperature == 2.0
    other = EmbeddedPolicy(store)
    GRPOTrainer(other, cfg).load_state_dict(json.loads(json.dumps(trainer.state_dict())))
    assert other.temperature == 2.0


def test_analytic_gradient_matches_finite_differences(setup) -> None:
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    policy.theta = np.random.default_rng(3).normal(0, 0.5, policy.theta.shape)
    traj = _group(policy, env, 1, seed=5)[0]
    d: Decision = next(x for x in traj.decisions if x.head == "node")
    lp, dlogits = policy.logprob_and_dlogits(d, policy.theta)
    grad = np.zeros_like(policy.theta)
    policy.add_grad(d, dlogits, 1.0, grad)
    h = 1e-6
    for i in np.flatnonzero(grad)[:12]:
        t = policy.theta.copy()
        t[i] += h
        lp2, _ = policy.logprob_and_dlogits(d, t)
        assert math.isclose((lp2 - lp) / h, grad[i], rel_tol=1e-3, abs_tol=1e-6)


def test_update_raises_probability_of_better_trajectories(setup) -> None:
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    group = _group(policy, env, 16, seed=1)
    # reward: one for emails with the direct ask, zero otherwise
    for t in group:
        t.reward = 1.0 if t.metadata.style["ask"] == 1 else 0.0
    assert len({t.reward for t in group}) == 2
    stats = GRPOTrainer(policy, GRPOConfig(mu=2)).step(policy, [group])
    assert stats["updates"] == 2.0 and stats["trajectories"] == 16.0
    d = next(d for d in group[0].decisions if d.head == "ask")
    logits = policy.logits(d, policy.theta)
    assert logits[1] > logits[0]


def test_clipping_stops_the_gradient_beyond_epsilon(setup) -> None:
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    group = _group(policy, env, 16, seed=2)
    for i, t in enumerate(group):
        t.reward = float(i % 2)
    stats = GRPOTrainer(policy, GRPOConfig(mu=30, learning_rate=1.0)).step(policy, [group])
    assert 0.0 < stats["clip_fraction"] <= 1.0


def test_kl_penalty_reported_when_beta_positive(setup) -> None:
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    group = _group(policy, env, 16, seed=4)
    for i, t in enumerate(group):
        t.reward = float(i % 3 == 0)
    stats = GRPOTrainer(policy, GRPOConfig(mu=4, beta=0.1)).step(policy, [group])
    assert stats["kl"] > 0.0


def test_state_dict_round_trip(setup) -> None:
    store, _, env = setup
    policy = EmbeddedPolicy(store)
    group = _group(policy, env, 8)
    for i, t in enumerate(group):
        t.reward = i / 8
    trainer = make_trainer("grpo", policy, GRPOConfig())
    trainer.step(policy, [group])
    state = json.loads(json.dumps(policy.state_dict()))
    tstate = json.loads(json.dumps(trainer.state_dict()))
    other = EmbeddedPolicy(store)
    other.load_state_dict(state)
    other_trainer = GRPOTrainer(other)
    other_trainer.load_state_dict(tstate)
    assert np.array_equal(other.theta, policy.theta)
    assert isinstance(trainer, GRPOTrainer)
    assert np.array_equal(other_trainer.adam.m, trainer.adam.m)
    # GRPO's epochs on the shared weights; self-imitation's steps on the elite (the
    # best rollout) move the prospect's own weights, with their own Adam state.
    assert other_trainer.adam.t == trainer.adam.t == GRPOConfig().mu
    assert other_trainer.own_adam["s"].t == trainer.own_adam["s"].t >= GRPOConfig().sil_steps
    assert other.personal.keys() == policy.personal.keys() == {"s"}
    assert np.array_equal(other.personal["s"], policy.personal["s"])
    assert other_trainer.explore_share == trainer.explore_share
    assert other_trainer.elites.keys() == trainer.elites.keys() == {"s"}
    # Both go on alike: the elite's decisions and exploration's share were restored.
    for t in group:
        t.reward = 1.0 - t.reward
    trainer.step(policy, [group])
    other_trainer.step(other, [group])
    assert np.array_equal(other.theta, policy.theta)
    assert np.array_equal(other.personal["s"], policy.personal["s"])
    # No per-node parameters: what was learned on one graph loads on another.
    other_graph = GraphStore.from_json(json.loads((REPO / "data" / "graph.json").read_text()))
    EmbeddedPolicy(other_graph).load_state_dict(state)
    with pytest.raises(ValueError, match="different version"):
        EmbeddedPolicy(store).load_state_dict({**state, "theta": state["theta"][:-1]})


def test_policy_acts_and_never_imports_the_trainers() -> None:
    """DESIGN §3: policies act, trainers learn; imports point from train/ to agent/."""
    import ast

    root = REPO / "codreamer" / "agent"
    own = ["policies/embedded.py", "policies/features.py", "policies/session.py", "style.py"]
    own += [f"writer/{p.name}" for p in (root / "writer").glob("*.py")]
    for path in (root / p for p in own):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                assert not name.startswith("codreamer.train"), f"{path} imports {name}"


def _walked(t) -> tuple[str, ...]:
    """The nodes the policy walked (the writer may carry a short walk on to the product)."""
    return tuple(t.final_email.citations[: t.metadata.hops + 1])


def test_relevance_weights_stay_non_negative_whatever_the_rewards(setup) -> None:
    """The shared weights of the monotone node features (tellable, notes and meaning
    matches, here and ahead) are projected onto >= 0 after each update: rewards that
    favour walks to less relevant nodes can zero them but not invert them, which is
    what sent held-out readers away from their own facts. Unprojected, the same
    update drives the meaning weight negative."""
    import copy

    from codreamer.agent.policies.embedded import NODE_FEATURES

    store, _, env = setup
    meaning = NODE_FEATURES.index("rel_meaning")

    def trained(project: bool) -> np.ndarray:
        policy = EmbeddedPolicy(store)
        if not project:
            policy.layout = copy.copy(policy.layout)
            policy.layout.monotone = np.array([], dtype=int)
        group = _group(policy, env, 24, seed=3)
        for t in group:  # reward: the less the walk's nodes mean to the reader, the better
            xs = [d.x[d.chosen, meaning] for d in t.decisions
                  if d.head == "node" and d.chosen < d.x.shape[0]]  # fmt: skip
            t.reward = -float(np.mean(xs)) if xs else 0.0
        GRPOTrainer(policy, GRPOConfig(mu=4)).step(policy, [group])
        return policy.theta[policy.layout.w]

    assert trained(project=False)[meaning] < 0.0
    kept = trained(project=True)
    for name in ("tellable", "rel_notes", "rel_meaning", "ahead_notes", "ahead_meaning"):
        assert kept[NODE_FEATURES.index(name)] >= 0.0
