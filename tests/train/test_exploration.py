"""Exploration that a run's search can count on, and a greedy policy that keeps what
it found: uniform explorers early, no email sampled twice, self-imitation (SIL)."""

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
from codreamer.loaders import load_scenarios
from codreamer.train.config import GRPOConfig
from codreamer.train.grpo import GRPOTrainer

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(shared_kg: Path) -> RolloutEnv:
    store = GraphStore.from_json(json.loads((shared_kg / "synthetic-data-16.json").read_text()))
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    return RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, 5)


def _metas(n: int, sid: str) -> list[TrajectoryMeta]:
    return [TrajectoryMeta(trajectory_id=f"t{j}", scenario_id=sid, iteration=1) for j in range(n)]


def _email(t) -> tuple:
    return (tuple(t.final_email.citations), tuple(sorted((t.metadata.style or {}).items())))


def _greedy(policy: EmbeddedPolicy, env: RolloutEnv):
    meta = TrajectoryMeta(trajectory_id="g", scenario_id=env.scenario.id, iteration=1)
    return rollout(policy, env, np.random.default_rng(0), meta, greedy=True)


def test_self_imitation_makes_the_greedy_email_the_best_one_judged(env: RolloutEnv) -> None:
    """One group of an untrained policy; the email judged best is neither the greedy
    one nor the most frequent. After one trainer step the greedy policy writes it."""
    policy = EmbeddedPolicy(env.store)
    policy.explore_share = 0.0
    group = policy.rollout_group(env, np.random.default_rng(5), _metas(16, env.scenario.id))
    before = _email(_greedy(policy, env))
    best = next(t for t in reversed(group) if _email(t) != before)
    for t in group:
        t.reward = 1.0 if t is best else 0.2
    cfg = GRPOConfig(explore_share=0.0)
    GRPOTrainer(policy, cfg).step(policy, [group])
    assert _email(_greedy(policy, env)) == _email(best)

    # Without self-imitation the same single step leaves the greedy email elsewhere:
    # one GRPO step alone does not carry the policy to a once-seen email.
    plain = EmbeddedPolicy(env.store)
    GRPOTrainer(plain, GRPOConfig(explore_share=0.0, sil_coef=0.0)).step(plain, [group])
    assert _email(_greedy(plain, env)) != _email(best)


def test_explorers_and_no_repeats_sample_more_distinct_emails(env: RolloutEnv) -> None:
    """A sharpened policy samples the same few emails again and again; with a share of
    uniform explorers and repeats redrawn, a group of the same size holds at least
    twice as many distinct emails."""
    sharp = np.random.default_rng(7).normal(0, 5.0, EmbeddedPolicy(env.store).theta.shape)

    def group(explore: float, avoid: bool) -> list:
        policy = EmbeddedPolicy(env.store)
        policy.theta = sharp.copy()
        trainer = GRPOTrainer(policy, GRPOConfig(explore_share=explore, avoid_repeats=avoid))
        assert policy.explore_share == explore and policy.avoid_repeats is avoid
        del trainer
        return policy.rollout_group(env, np.random.default_rng(3), _metas(16, env.scenario.id))

    before = group(0.0, False)
    after = group(0.5, True)
    assert not any(t.metadata.explore for t in before)
    assert [t.metadata.explore for t in after] == [False] * 8 + [True] * 8
    distinct_before = len({_email(t) for t in before})
    distinct_after = len({_email(t) for t in after})
    assert distinct_before < 8 and distinct_after >= 2 * distinct_before, (
        distinct_before,
        distinct_after,
    )


def test_explorers_take_no_part_in_the_surrogate_nor_its_baseline(env: RolloutEnv) -> None:
    """Uniform draws are off-policy: a group of explorers alone, with spread rewards,
    moves nothing when self-imitation and the entropy bonus are off; nor do they in a
    group whose on-policy emails all scored alike (were they in the baseline, those
    emails would all look better than it and be reinforced)."""
    policy = EmbeddedPolicy(env.store)
    policy.explore_share = 1.0
    group = policy.rollout_group(env, np.random.default_rng(1), _metas(8, env.scenario.id))
    assert all(t.metadata.explore for t in group)
    for i, t in enumerate(group):
        t.reward = i / 8
    before = policy.theta.copy()
    cfg = GRPOConfig(sil_coef=0.0, entropy_coef=0.0)
    stats = GRPOTrainer(policy, cfg).step(policy, [group])
    assert stats["trajectories"] == 0.0
    assert np.array_equal(before, policy.theta)
    # The same group, drawn by the policy itself, does move it.
    own = EmbeddedPolicy(env.store)
    group = own.rollout_group(env, np.random.default_rng(1), _metas(8, env.scenario.id))
    for i, t in enumerate(group):
        t.reward = i / 8
    GRPOTrainer(own, cfg).step(own, [group])
    assert not np.array_equal(before, own.theta)
    # Half explorers scoring low, half the policy's own emails scoring alike.
    mixed = EmbeddedPolicy(env.store)
    mixed.explore_share = 0.5
    group = mixed.rollout_group(env, np.random.default_rng(1), _metas(8, env.scenario.id))
    assert [t.metadata.explore for t in group] == [False] * 4 + [True] * 4
    for t in group:
        t.reward = 0.1 if t.metadata.explore else 0.8
    GRPOTrainer(mixed, cfg).step(mixed, [group])
    assert np.array_equal(before, mixed.theta)


def test_self_imitation_moves_the_prospects_own_weights_not_the_shared_ones(
    env: RolloutEnv,
) -> None:
    """The elite becomes the trained prospect's greedy email through its own weights:
    the shared weights end as GRPO alone leaves them, and a prospect the policy never
    trained on gets the shared weights' greedy email, not the trained one's."""
    policy = EmbeddedPolicy(env.store)
    group = policy.rollout_group(env, np.random.default_rng(5), _metas(16, env.scenario.id))
    before = _email(_greedy(policy, env))
    best = next(t for t in reversed(group) if _email(t) != before)
    for t in group:
        t.reward = 1.0 if t is best else 0.2
    GRPOTrainer(policy, GRPOConfig(explore_share=0.0)).step(policy, [group])
    plain = EmbeddedPolicy(env.store)
    GRPOTrainer(plain, GRPOConfig(explore_share=0.0, sil_coef=0.0)).step(plain, [group])
    assert np.array_equal(policy.theta, plain.theta)
    assert set(policy.personal) == {env.scenario.id} and not plain.personal
    assert _email(_greedy(policy, env)) == _email(best) != _email(_greedy(plain, env))
    other = load_scenarios(REPO / "data" / "scenarios.json")[3]
    unseen = RolloutEnv(env.store, env.tools, other, env.depth)
    assert _email(_greedy(policy, unseen)) == _email(_greedy(plain, unseen))
    # Sampled emails are drawn from the shared weights, the trained prospect's too.
    policy.avoid_repeats = plain.avoid_repeats = False  # only `policy` has sampled yet
    again = [_email(t) for t in policy.rollout_group(env, np.random.default_rng(9), _metas(8, "x"))]
    shared = [_email(t) for t in plain.rollout_group(env, np.random.default_rng(9), _metas(8, "x"))]
    assert again == shared


def test_exploration_share_decays_as_configured(env: RolloutEnv) -> None:
    policy = EmbeddedPolicy(env.store)
    trainer = GRPOTrainer(policy, GRPOConfig(explore_share=0.5, explore_decay=0.5))
    group = policy.rollout_group(env, np.random.default_rng(2), _metas(8, env.scenario.id))
    for i, t in enumerate(group):
        t.reward = i / 8
    stats = trainer.step(policy, [group])
    assert stats["explore_share"] == 0.5 and policy.explore_share == 0.25


def test_self_imitation_tells_apart_siblings_whose_features_are_alike() -> None:
    """Two steps with the same text, relation and rationale give every feature alike,
    so weights over features cannot prefer one: the prospect's own per-node biases
    make the elite's sibling, whichever it is, its greedy choice."""
    same = "Reconciles returns by hand at month end, which delays the close."
    edge = {"relationship": "causes", "rationale": "Manual work delays the close."}
    data = [
        {
            "id": "Customer Job",
            "content": "Runs finance for a retailer.",
            "edge": [{"target_id": n, **edge} for n in ("Step A", "Step B")],
        },
        *(
            {
                "id": n,
                "content": same,
                "edge": [{"target_id": "Product Feature", **edge, "relationship": "is solved by"}],
            }
            for n in ("Step A", "Step B")
        ),
        {"id": "Product Feature", "content": "We match returns to refunds.", "edge": []},
    ]
    store = GraphStore.from_json(data)
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, 3)
    for elite_step in ("Step A", "Step B"):
        policy = EmbeddedPolicy(store)
        policy.explore_share = 0.0
        group = policy.rollout_group(env, np.random.default_rng(1), _metas(16, scenario.id))
        best = next(t for t in group if elite_step in t.final_email.citations)
        for t in group:
            t.reward = 1.0 if t is best else 0.2
        GRPOTrainer(policy, GRPOConfig(explore_share=0.0)).step(policy, [group])
        # Strictly: a tie would be broken by each greedy rollout's own generator.
        for seed in range(8):
            meta = TrajectoryMeta(trajectory_id="g", scenario_id=scenario.id, iteration=1)
            g = rollout(policy, env, np.random.default_rng(seed), meta, greedy=True)
            assert elite_step in g.final_email.citations, seed
        # State round-trips, biases included.
        again = EmbeddedPolicy(store)
        again.load_state_dict(json.loads(json.dumps(policy.state_dict())))
        assert _email(_greedy(again, env)) == _email(_greedy(policy, env))


def test_polishers_replay_the_elite_walk_one_style_choice_away(env: RolloutEnv) -> None:
    """After a step, the next group's polishers write the elite's walk in styles that
    differ from the elite's in exactly one choice, each one the run has not judged on
    that walk, none twice; they are off-policy (marked like explorers)."""
    policy = EmbeddedPolicy(env.store)
    trainer = GRPOTrainer(policy, GRPOConfig(explore_share=0.0, polish_share=0.25))
    group = policy.rollout_group(env, np.random.default_rng(5), _metas(16, env.scenario.id))
    assert not any(t.metadata.explore for t in group)  # no elite yet: nothing to polish
    for k, t in enumerate(group):
        t.reward = 0.1 + 0.01 * k
    trainer.step(policy, [group])
    elite = group[-1]
    walk, style = tuple(elite.final_email.citations), elite.metadata.style
    judged = {_email(t) for t in group}
    nxt = policy.rollout_group(env, np.random.default_rng(6), _metas(16, env.scenario.id))
    polishers = [t for t in nxt if t.metadata.explore]
    assert len(polishers) == 4
    styles = set()
    for t in polishers:
        assert tuple(t.final_email.citations) == walk
        changed = [h for h, v in t.metadata.style.items() if v != style[h]]
        assert len(changed) == 1
        assert _email(t) not in judged
        styles.add(tuple(sorted(t.metadata.style.items())))
    assert len(styles) == 4


def test_polishing_reaches_a_better_style_of_the_best_walk(env: RolloutEnv) -> None:
    """A reward that wants one style choice changed from the elite's: with polishers
    the next group judges that email; without them (all else alike) it does not."""

    def next_group(polish: float) -> list:
        policy = EmbeddedPolicy(env.store)
        trainer = GRPOTrainer(policy, GRPOConfig(explore_share=0.0, polish_share=polish))
        group = policy.rollout_group(env, np.random.default_rng(5), _metas(16, env.scenario.id))
        for k, t in enumerate(group):
            t.reward = 0.1 + 0.01 * k
        trainer.step(policy, [group])
        nxt = policy.rollout_group(env, np.random.default_rng(6), _metas(16, env.scenario.id))
        return group, nxt

    group, polished = next_group(0.5)
    elite = group[-1]
    walk, style = tuple(elite.final_email.citations), dict(elite.metadata.style)
    targets = [
        (walk, tuple(sorted({**style, h: k}.items())))
        for h, k in (("register", 1 - style["register"]), ("ask", 1 - style["ask"]))
    ]
    assert any(_email(t) in targets for t in polished)
    _, plain = next_group(0.0)
    assert not any(_email(t) in targets for t in plain)
