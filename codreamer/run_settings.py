"""The run settings, each declared once (DESIGN §2): name, default, bounds, meaning.

`RunSettings` is the one table. codreamer.runs.spec.RunSpec (what a caller asks for:
the API's request model and the CLI's options are generated from it) and
codreamer.loop.config.LoopConfig (a run's resolved config, as meta.json stores it)
are both made of it, so a setting is added here once and reaches all of them.
Choices (policy, trainer, judge) are the registries' names (codreamer.registry).
"""

from __future__ import annotations

from typing import Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from codreamer.models import Sender
from codreamer.registry import (
    JUDGES,
    POLICIES,
    TRAINERS,
    JudgeName,
    PolicyName,
    TrainerName,
    check_pairing,
    default_trainer,
)

DEPTH_MEANING = (
    "The most hops a rollout may walk from its seed node (1-12). A rollout therefore "
    "has at most depth + 1 exploring turns (the seed's, then one per hop) before it is "
    "finalized with what it has; as a guard against a policy that neither explores nor "
    "finalizes (an LLM replying in prose), a rollout also ends after 2 * (depth + 2) "
    "turns of any kind. The oracle searches walks of at most `depth` hops."
)

PATIENCE_MEANING = (
    "Early stop on convergence (0-50; 0 turns it off): the run ends after iteration i "
    "when none of the last `patience` iterations improved the best judged email of any "
    "prospect and every group in each of them had rewards with no spread "
    "(frac_reward_zero_std = 1). It then writes its final email and says so in a "
    "`run_converged` event."
)


AGENT_MEANING = (
    "A named agent (1-64 letters, digits, '-' or '_'): the run starts from its latest "
    "version (its policy, node scores and the judge refitted to its team's ratings) "
    "and, on success, records the next version; a new name starts a new agent. One "
    "run at a time continues an agent (409 while another does)."
)


class RunSettings(BaseModel):
    """The run settings, each declared once: RunSpec (what a caller asks for) and
    LoopConfig (what meta.json stores) are both made of these fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    iterations: int = Field(
        3, ge=1, le=50, description="Learning iterations after the baseline (1-50)."
    )
    depth: int = Field(5, ge=1, le=12, description=DEPTH_MEANING)
    group_size: int = Field(
        16,
        ge=2,
        le=256,
        description="Rollouts per training scenario per iteration (2-256). GRPO's baseline "
        "is the group mean, so a group needs a few members for its mean and spread to "
        "mean something; 16 does it and still runs an iteration in milliseconds.",
    )
    seed: int = Field(
        0,
        ge=0,
        le=2**32 - 1,
        description="Root of every random stream of the run: iteration k samples from a "
        "generator seeded by (seed, k), so the same inputs and seed give the same run, "
        "and a resumed run draws what an uninterrupted one would.",
    )
    policy: PolicyName = Field("embedded", description="Who writes: " + POLICIES.help() + ".")
    trainer: TrainerName | None = Field(
        None,
        description="What learns in step 3: "
        + TRAINERS.help()
        + ". Default by policy: "
        + ", ".join(f"{p.name} {p.trainers[0]}" for p in POLICIES)
        + ".",
    )
    judge: JudgeName = Field("rubric", description="Who scores: " + JUDGES.help() + ".")
    sender: Sender = Field(
        default_factory=Sender,
        description="Who signs the emails (`name`, optional `company`, `title`). "
        "Default: CODREAMER_SENDER_NAME / CODREAMER_SENDER_COMPANY.",
    )
    patience: int = Field(
        5,
        ge=0,
        le=50,
        description=PATIENCE_MEANING,
    )
    agent: str | None = Field(
        None,
        max_length=64,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$",
        description=AGENT_MEANING,
    )

    @field_validator("trainer")
    @classmethod
    def _trainer_fits_policy(cls, trainer: str | None, info: ValidationInfo) -> str | None:
        # A field validator, so the error names `trainer` (`policy` is declared first,
        # so it is in info.data when it was valid).
        policy = info.data.get("policy")
        if trainer is not None and policy is not None:
            try:
                check_pairing(trainer, policy)
            except ValueError as exc:  # a custom error: no "Value error, " in front
                raise PydanticCustomError("trainer_policy", str(exc)) from None
        return trainer

    @model_validator(mode="after")
    def _default_trainer(self) -> Self:
        if self.trainer is None:  # frozen: resolved once, here
            object.__setattr__(self, "trainer", default_trainer(self.policy))
        return self
