"""The resolved configuration of one learn-loop run (stored in meta.json)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from codreamer.models import Scenario, Sender
from codreamer.train.config import GRPOConfig


class FeedbackMix(BaseModel):
    """reward = alpha * judge + beta * human + gamma * online (DESIGN §4).

    A signal with no event for a trajectory is left out and the remaining
    weights renormalised: outcomes are never invented.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    alpha: float = Field(1.0, ge=0.0, description="Weight of the judge's score.")
    beta: float = Field(0.5, ge=0.0, description="Weight of human preference feedback.")
    gamma: float = Field(0.5, ge=0.0, description="Weight of online outcomes.")


class LoopConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    iterations: int = Field(3, ge=1, le=50, description="GRPO iterations after the baseline.")
    depth: int = Field(5, ge=1, le=12, description="Most hops one rollout may walk.")
    scenario: Scenario = Field(
        description="The scenario of each iteration's greedy email (the first training one)."
    )
    scenarios: list[Scenario] = Field(
        default_factory=list,
        max_length=64,
        description=(
            "Training scenarios: each iteration draws group_size rollouts for every one "
            "(default: just `scenario`)."
        ),
    )
    sender: Sender = Field(default_factory=Sender, description="Who signs the emails.")
    policy: Literal["embedded", "openai", "art"] = "embedded"
    trainer: Literal["grpo", "art", "prompt", "none"] | None = Field(
        None,
        description="What learns in step 3; default by policy: embedded grpo, openai prompt, "
        "art art.",
    )
    judge: Literal["rubric", "llm", "ruler"] = "rubric"
    node_step: float = Field(0.1, gt=0.0, le=1.0, description="KG node-score step (step 4).")
    grpo: GRPOConfig = Field(default_factory=GRPOConfig)
    feedback: FeedbackMix = Field(default_factory=FeedbackMix)
    eval_scenarios: list[Scenario] = Field(
        default_factory=list, description="Held-out scenarios for step 5 (evaluate)."
    )
    model: str | None = Field(None, description="Model name for the openai / art policies.")

    @model_validator(mode="before")
    @classmethod
    def _primary_scenario(cls, data: Any) -> Any:
        # Either may be given: `scenario` alone trains on it; `scenarios` alone makes
        # its first the primary one (whose greedy email each iteration reports).
        if isinstance(data, dict):
            data = dict(data)
            many = list(data.get("scenarios") or [])
            one = data.get("scenario")
            if one is None and many:
                data["scenario"] = many[0]
            elif one is not None and not many:
                data["scenarios"] = [one]
        return data

    @model_validator(mode="before")
    @classmethod
    def _lift_grpo_fields(cls, data: Any) -> Any:
        # `group_size` and `seed` live in GRPOConfig but are accepted at the top
        # level, where the API body and the CLI put them.
        if isinstance(data, dict) and ("group_size" in data or "seed" in data):
            data = dict(data)
            grpo = data.get("grpo") or {}
            grpo = dict(grpo) if isinstance(grpo, dict) else grpo.model_dump()
            for key in ("group_size", "seed"):
                if key in data:
                    value = data.pop(key)
                    if value is not None:
                        grpo[key] = value
            data["grpo"] = grpo
        return data

    @field_validator("trainer")
    @classmethod
    def _trainer_fits_policy(cls, trainer: str | None, info: ValidationInfo) -> str | None:
        # A field validator, so the error names `trainer` (`policy` is declared first,
        # so it is in info.data when it was valid).
        from codreamer.train.base import check_pairing

        policy = info.data.get("policy")
        if trainer is not None and policy is not None:
            check_pairing(trainer, policy)
        return trainer

    @model_validator(mode="after")
    def _default_trainer(self) -> LoopConfig:
        from codreamer.train.base import default_trainer

        if self.trainer is None:
            self.trainer = default_trainer(self.policy)  # type: ignore[assignment]
        return self

    @property
    def group_size(self) -> int:
        return self.grpo.group_size

    @property
    def seed(self) -> int:
        return self.grpo.seed
