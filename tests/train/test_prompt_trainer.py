"""The prompt trainer on judged groups: exemplars (best, diverse, sendable only),
rule-based suggestions from the judge's weak criteria, hashes, overrides."""

from __future__ import annotations

import pytest

from codreamer.agent.policies.openai_policy import OpenAIPolicy
from codreamer.agent.policies.prompt import (
    DEFAULT_SECTIONS,
    Prompt,
    PromptOverride,
    text_hash,
    with_overrides,
)
from codreamer.agent.trajectory import Trajectory, TrajectoryMeta
from codreamer.judge.base import RubricGroupJudge
from codreamer.llm.client import ChatClient
from codreamer.models import CriterionScore, FinalEmail, Judgement, Prospect, Scenario
from codreamer.train.prompt import PromptTrainer, failed_sendability, select_exemplars


def judgement(**scores: float) -> Judgement:
    criteria = {
        name: CriterionScore(score=v, weight=0.0 if name.startswith("no_") else 0.2, reason=name)
        for name, v in scores.items()
    }
    return Judgement(total=0.5, criteria=criteria)


def traj(tid: str, scenario: str, reward: float, body: str, j: Judgement) -> Trajectory:
    prospect = Prospect(name=f"P {scenario}", title="VP Ops", company=f"{scenario} Inc")
    return Trajectory(
        messages=[
            {"role": "system", "content": "s"},
            {"role": "user", "content": f"Prospect: {prospect.model_dump_json()}\nGoal: g"},
        ],
        final_email=FinalEmail(subject="Hi", body=body, citations=["Customer Job"]),
        reward=reward,
        judgement=j,
        metadata=TrajectoryMeta(trajectory_id=tid, scenario_id=scenario, iteration=1),
    )


def policy() -> OpenAIPolicy:
    return OpenAIPolicy(None, ChatClient("http://127.0.0.1:9/v1"), "m")  # type: ignore[arg-type]


GOOD = judgement(call_to_action=0.2, personalisation=0.9, no_placeholders=1.0, no_spam=1.0)


def test_exemplars_are_the_best_sendable_emails_one_per_prospect_first():
    groups = [
        [
            traj("a1", "a", 0.90, "Hello A, one.", GOOD),
            traj("a2", "a", 0.85, "Hello A, two.", GOOD),
            traj("b1", "b", 0.60, "Hello B.", GOOD),
            # the best reward of all, but it failed a sendability check: never shown
            traj("c1", "c", 0.99, "Hi [Your Name]", judgement(no_placeholders=0.0)),
            traj("d1", "d", 0.95, "Dear Dan, BUY NOW!!", judgement(no_spam=0.5)),
        ]
    ]
    pol = policy()
    stats = PromptTrainer(exemplars=3).step(pol, groups)
    assert [e.trajectory_id for e in pol.prompt.exemplars] == ["a1", "b1", "a2"]
    assert pol.prompt.exemplars[0].prospect == "P a, VP Ops at a Inc"
    assert stats["exemplars"] == 3.0
    rendered = pol.system_prompt()
    assert "Hello A, one." in rendered and "[Your Name]" not in rendered


def test_failed_sendability_reads_gates_penalties_and_placeholders():
    assert failed_sendability(judgement(no_spam=1.0, english=1.0), "Hi Ann") == []
    assert failed_sendability(judgement(english=0.0), "Hallo") == ["english"]
    assert failed_sendability(None, "Best, {{sender}}") == ["placeholder text"]


def test_weak_criteria_become_suggestions_on_their_sections_with_hashes():
    groups = [[traj(f"t{i}", "a", 0.5, f"Body {i}.", GOOD) for i in range(4)]]
    pol = policy()
    before = dict(pol.prompt.sections)
    PromptTrainer().step(pol, groups)
    (change,) = pol.prompt.changes  # personalisation (0.9) is above the threshold
    assert change.section == "ask" and change.criterion == "call_to_action"
    assert change.original_hash == text_hash(before["ask"])
    assert change.suggested.startswith(before["ask"]) and "exactly one question" in change.suggested
    assert "call_to_action averaged 0.20" in change.rationale
    assert "+0.160" in change.expected_impact  # weight 0.2 x gap 0.8
    assert pol.prompt.version == 1 and pol.prompt.sections["ask"] == change.suggested
    # Said once: the same weakness again does not repeat the instruction.
    PromptTrainer().step(pol, groups)
    assert pol.prompt.changes == [] and pol.prompt.version == 2


def test_a_suggestion_for_text_that_changed_is_not_applied():
    p = Prompt()
    groups = [[traj("t", "a", 0.5, "B.", GOOD)]]
    trainer = PromptTrainer()
    (s,) = trainer.suggest(p, [t for g in groups for t in g])
    edited = p.model_copy(update={"sections": {**p.sections, "ask": "Ask twice."}})
    assert edited.apply([s]).sections["ask"] == "Ask twice."
    assert p.apply([s]).sections["ask"] == s.suggested


def test_overrides_apply_only_while_the_section_hashes_to_the_original():
    good = PromptOverride(section="ask", original_hash=text_hash(DEFAULT_SECTIONS["ask"]), body="X")
    stale = PromptOverride(section="role", original_hash="0" * 16, body="Y")
    prompt, skipped = with_overrides(Prompt(), [good, stale])
    assert prompt.sections["ask"] == "X" and prompt.sections["role"] == DEFAULT_SECTIONS["role"]
    assert prompt.overrides_applied == [f"ask@{good.original_hash}"]
    assert skipped == ["role: the section changed since the override was saved"]


def test_select_exemplars_is_a_total_order():
    from codreamer.train.prompt import _exemplar

    trajs = [traj(f"t{i}", "ab"[i % 2], 0.7, f"Same reward {i}.", GOOD) for i in range(6)]
    cands = [_exemplar(t, {}, 1) for t in trajs]
    a = select_exemplars(cands, 2, {t.id for t in trajs})
    b = select_exemplars(list(reversed(cands)), 2, {t.id for t in trajs})
    assert a == b and [e.trajectory_id for e in a] == ["t0", "t1"]


def test_the_prompt_trainer_refuses_a_policy_without_a_prompt(store):
    from codreamer.agent.policies.embedded import EmbeddedPolicy

    with pytest.raises(TypeError, match="needs an LLM policy"):
        PromptTrainer().step(EmbeddedPolicy(store), [])


def test_on_real_rubric_judgements_it_proposes_something(store):
    """End to end on the rubric: a bare, ask-less email gets instructions back."""
    sc = Scenario(prospect=Prospect(name="Ann Lee", company="Acme"), goal="Book a call")
    judge = RubricGroupJudge(store)
    email = FinalEmail(subject="x", body="Cold chain data.", citations=["Customer Job"])
    j = judge.score_group([email], sc)[0]
    t = traj("t0", "custom", j.total, email.body, j)
    pol = policy()
    PromptTrainer().step(pol, [[t]])
    assert pol.prompt.changes, j.criteria
    assert all(c.rationale and c.expected_impact for c in pol.prompt.changes)
    assert pol.prompt.version == 1
