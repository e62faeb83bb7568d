"""The trainer interface (DESIGN §3: policies act, trainers learn).

A policy (codreamer/agent/policies/) only acts: it samples choices and can say
how likely a choice was and how that likelihood moves with its parameters. A
trainer owns everything about learning: the update rule, the optimiser state,
the reference policy, and their checkpoints. The loop calls, each iteration,

    stats = trainer.step(policy, judged_groups)

and checkpoints `policy.state_dict()` and `trainer.state_dict()` side by side
(iter{k}_policy.json), so a resumed run continues bit-for-bit.

Trainers: `grpo` (the embedded policy, codreamer/train/grpo.py); `art` (the
art policy's weights, codreamer/train/art.py); `prompt` (any LLM policy's
prompt, codreamer/train/prompt.py); `none`. `make_trainer` builds the one a run
asked for (`--trainer`, default by policy); heavy ones are imported only when
chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from codreamer.registry import TRAINERS as REGISTRY
from codreamer.registry import check_pairing, default_trainer, resolve

if TYPE_CHECKING:
    from codreamer.agent.policies.base import Policy
    from codreamer.agent.trajectory import Trajectory
    from codreamer.config import Settings
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


# Names, pairings and defaults live in codreamer.registry (one line per trainer).
TRAINERS = REGISTRY


def make_trainer(
    name: str | None, policy: Policy, settings: Settings, grpo: GRPOConfig | None = None
) -> Trainer:
    """The trainer `name` for `policy` (None: the policy's default); everything it
    needs is passed in."""
    name = name or default_trainer(policy.name)
    check_pairing(name, policy.name)
    factory = resolve(REGISTRY.get(name).factory)
    return factory(policy, settings, grpo)  # type: ignore[no-any-return]


def grpo_trainer(policy: Policy, settings: Settings, grpo: GRPOConfig | None) -> Trainer:
    # Deferred: only the chosen trainer loads.
    from codreamer.train.grpo import GRPOTrainer

    return GRPOTrainer(policy, grpo)


def art_trainer(policy: Policy, settings: Settings, grpo: GRPOConfig | None) -> Trainer:
    # Deferred: ART is the optional `art` extra, loaded only when chosen.
    from codreamer.train.art import ArtTrainer

    return ArtTrainer(settings.art_learning_rate)


def prompt_trainer(policy: Policy, settings: Settings, grpo: GRPOConfig | None) -> Trainer:
    # Deferred: only the chosen trainer loads.
    from codreamer.train.prompt import PromptTrainer

    return PromptTrainer.from_settings(settings)


def no_trainer(policy: Policy, settings: Settings, grpo: GRPOConfig | None) -> Trainer:
    return NoTrainer()
