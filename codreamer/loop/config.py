"""The resolved configuration of one learn-loop run (stored in meta.json)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from codreamer.models import Scenario
from codreamer.run_settings import PATIENCE_MEANING, RunSettings
from codreamer.store.meta import RunMeta
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


class LoopConfig(RunSettings):
    """A run's resolved configuration, as meta.json stores it.

    The run settings (iterations, depth, group_size, seed, policy, trainer, judge,
    sender, patience, agent) are RunSettings' fields, declared, bounded, defaulted and
    documented once (codreamer.run_settings); codreamer.runs.spec.RunSpec resolves
    them and builds this object. The knobs below them are not chosen per run by
    callers and keep their defaults.
    """

    model_config = ConfigDict(extra="forbid", frozen=False)

    # Runs written before early stopping had none: off, so they resume as they ran.
    patience: int = Field(0, ge=0, le=50, description=PATIENCE_MEANING)
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
    node_step: float = Field(0.1, gt=0.0, le=1.0, description="KG node-score step (step 4).")
    grpo: GRPOConfig = Field(default_factory=GRPOConfig)
    feedback: FeedbackMix = Field(default_factory=FeedbackMix)
    eval_scenarios: list[Scenario] = Field(
        default_factory=list, description="Held-out scenarios for step 5 (evaluate)."
    )
    model: str | None = Field(None, description="Model name for the openai / art policies.")
    agent_version: int | None = Field(
        None, description="The agent version the run starts from (None: a new agent)."
    )

    @classmethod
    def from_meta(cls, meta: RunMeta) -> LoopConfig:
        """The config a run's meta.json stores, typed (older layouts included)."""
        return cls.model_validate(meta.config)

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
    def _from_older_runs(cls, data: Any) -> Any:
        # Runs written before RunSpec kept `group_size` and `seed` inside `grpo` (GRPO
        # never read them): lift them out, so every existing run still loads and resumes.
        if isinstance(data, dict) and isinstance(data.get("grpo"), dict):
            grpo = dict(data["grpo"])
            if "group_size" in grpo or "seed" in grpo:
                data = dict(data)
                for key in ("group_size", "seed"):
                    value = grpo.pop(key, None)
                    if value is not None:
                        data.setdefault(key, value)
                data["grpo"] = grpo
        return data
