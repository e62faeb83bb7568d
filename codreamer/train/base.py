"""The trainer interface (DESIGN §3: policies act, trainers learn).

A policy (codreamer/agent/policies/) only acts: it samples choices and can say
how likely a choice was and how that likelihood moves with its parameters. A
trainer owns everything about learning: the update rule, the optimiser state,
the reference policy, and their checkpoints. The loop calls, each iteration,

    stats = trainer.step(policy, judged_groups)

and checkpoints `policy.state_dict()` and `trainer.state_dict()` side by side
(iter{k}_policy.json), so a resumed run continues bit-for-bit.

Trainers: `grpo` (the embedded policy, codreamer/train/grpo.py); `art` and
`prompt` (LLM policies). `make_trainer` builds the one a run asked for; heavy
ones are imported only when chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from codreamer.agent.policies.base import Policy
    from codreamer.agent.trajectory import Trajectory
    from codreamer.train.config import GRPOConfig


class Trainer(Protocol):
    name: str

    def step(self, policy: Policy, judged_groups: list[list[Trajectory]]) -> dict[str, float]:
        """Learn from one iteration's judged groups (rewards set); returns training stats.

        Groups are per scenario: advantages are computed within a group, never
        across prospects. Must be deterministic given the same inputs and state.
        """
        ...

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume training bit-for-bit (JSON-serialisable)."""
        ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


class NoTrainer:
    """Learns nothing: for policies with nothing to train (still a valid run)."""

    name = "none"

    def step(self, policy: Policy, judged_groups: list[list[Trajectory]]) -> dict[str, float]:
        return {"groups": float(len(judged_groups)), "trainable": 0.0}

    def state_dict(self) -> dict[str, Any]:
        return {"trainer": self.name}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        return None


class PolicyTrainStep:
    """Transitional: a policy that still trains itself through `train_step`
    (openai, art until they get their own trainers, issue 12)."""

    name = "policy"

    def step(self, policy: Policy, judged_groups: list[list[Trajectory]]) -> dict[str, float]:
        train_step = getattr(policy, "train_step", None)
        if train_step is None:
            return NoTrainer().step(policy, judged_groups)
        return dict(train_step(judged_groups))

    def state_dict(self) -> dict[str, Any]:
        return {"trainer": self.name}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        return None


TRAINERS = ("grpo", "none", "policy")
DEFAULT_TRAINER = {"embedded": "grpo"}


def default_trainer(policy_name: str) -> str:
    return DEFAULT_TRAINER.get(policy_name, "policy")


def make_trainer(name: str | None, policy: Policy, grpo: GRPOConfig | None = None) -> Trainer:
    """The trainer `name` for `policy` (None: the policy's default)."""
    name = name or default_trainer(policy.name)
    if name == "grpo":
        from codreamer.train.grpo import GRPOTrainer

        return GRPOTrainer(policy, grpo)
    if name == "none":
        return NoTrainer()
    if name == "policy":
        return PolicyTrainStep()
    raise ValueError(f"unknown trainer {name!r}: choose {', '.join(TRAINERS)}")
