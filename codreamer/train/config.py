"""GRPO hyper-parameters, in one documented object (in the spirit of TRL's GRPOConfig)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class GRPOConfig(BaseModel):
    """Every knob of the GRPO update (DESIGN §3, after DeepSeekMath).

    Only what the update reads: how many rollouts a group has and the run's seed are
    run settings (codreamer.runs.spec.RunSpec), not GRPO's.

    Defaults are tuned for the embedded policy on graphs of 5 to 10,000 nodes:
    5 iterations on four training prospects reach >= 0.95 of the oracle on
    held-out prospects of the sample, reference and generated graphs (see
    benchmarks/bench_learning.py; learning rate and mu were swept there, and
    0.3-0.6 x 4-8 all land within the seeds' spread).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    epsilon: float = Field(
        0.2,
        gt=0.0,
        lt=1.0,
        description=(
            "Clip range of the probability ratio (default 0.2, as in PPO/DeepSeekMath): "
            "keeps each inner epoch from moving the policy far from the one that sampled."
        ),
    )
    mu: int = Field(
        4,
        ge=1,
        le=64,
        description=(
            "Inner optimisation epochs over each iteration's groups (default 4). The "
            "embedded policy is cheap to re-score, so several clipped steps per batch "
            "of rollouts learn more from each judged group."
        ),
    )
    beta: float = Field(
        0.0,
        ge=0.0,
        description=(
            "KL penalty toward the initial policy (default 0.0). The initial embedded "
            "policy is uniform, with no knowledge to preserve, so no anchor is needed; "
            "set > 0 for a pretrained (LLM) policy."
        ),
    )
    learning_rate: float = Field(
        0.3,
        gt=0.0,
        description=(
            "Adam step size (default 0.3). Parameters are logit weights of order 1, so "
            "large steps are safe and let 5 iterations suffice."
        ),
    )
    adam_beta1: float = Field(0.9, ge=0.0, lt=1.0, description="Adam first-moment decay.")
    adam_beta2: float = Field(0.999, ge=0.0, lt=1.0, description="Adam second-moment decay.")
    adam_eps: float = Field(1e-8, gt=0.0, description="Adam denominator guard.")
    advantage_eps: float = Field(
        1e-4,
        gt=0.0,
        description=(
            "Added to the group's reward std when normalising advantages "
            "(r - mean) / (std + eps); groups whose rewards are all equal are skipped "
            "before this, so it only guards near-constant groups."
        ),
    )
