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

    # --- exploration ------------------------------------------------------------
    # A group whose rollouts all write the same email has rewards with no spread:
    # its advantages are zero and it teaches nothing (TRL logs the share of such
    # groups as `frac_reward_zero_std`). Left alone, a policy that has sharpened
    # onto one email stops learning there, however far below the best it is. Two
    # knobs keep it exploring: an entropy bonus that resists the sharpening, and a
    # sampling temperature that the trainer raises while groups are collapsed.
    temperature: float = Field(
        1.0,
        gt=0.0,
        le=100.0,
        description=(
            "Sampling temperature of the rollouts (default 1.0, as TRL's GRPOConfig): "
            "choice probabilities are softmax(logits / temperature), and the update "
            "scores log-probabilities at the same temperature, so the ratio compares "
            "like with like. Greedy emails (each iteration's, evaluation) take the "
            "argmax and do not depend on it."
        ),
    )
    entropy_coef: float = Field(
        0.01,
        ge=0.0,
        description=(
            "Weight of the entropy bonus (default 0.01): the objective adds "
            "entropy_coef x the entropy of every decision's choice distribution, "
            "averaged like the surrogate. It applies to collapsed groups too (their "
            "advantages are zero), so a policy that has sharpened onto one email is "
            "pulled back toward trying others. 0 turns it off."
        ),
    )
    collapse_share: float = Field(
        0.5,
        gt=0.0,
        le=1.0,
        description=(
            "An iteration counts as collapsed when at least this share of its groups "
            "have no reward spread (frac_reward_zero_std >= collapse_share; default 0.5)."
        ),
    )
    temperature_growth: float = Field(
        1.5,
        ge=1.0,
        description=(
            "After a collapsed iteration the next one samples at temperature x this "
            "(up to max_temperature); after one that was not collapsed, at temperature "
            "/ this (down to `temperature`). 1.0 keeps the temperature fixed."
        ),
    )
    max_temperature: float = Field(
        4.0,
        gt=0.0,
        le=100.0,
        description="The highest temperature exploration raises sampling to (default 4.0).",
    )

    # --- broad early exploration and self-imitation -------------------------------
    # Sampling from the policy alone searches the emails it already likes: a run's
    # own samples were less diverse than uniformly random ones, and best-of-N random
    # beat the trained policy's greedy email at the same budget. Remedies from the
    # literature: a share of each group drawn uniformly at random (epsilon-greedy's
    # mixture, applied per rollout so the rest stay on-policy); no email sampled
    # twice in a run (sampling without replacement); and self-imitation of the
    # best email judged so far (Oh et al. 2018, "Self-Imitation Learning"), so the
    # greedy policy converges to the run's best email instead of drifting away.
    explore_share: float = Field(
        0.25,
        ge=0.0,
        le=1.0,
        description=(
            "Share of each group's rollouts, in the first iteration, that walk and "
            "choose a style uniformly at random among the allowed options (default "
            "0.25, rounded to whole pairs: 4 of a group of 16). They are judged like "
            "the others and may become a prospect's elite (self-imitation), but take "
            "no part in GRPO's surrogate nor its baseline (they are off-policy), so "
            "every explorer is an on-policy sample fewer for the shared weights. "
            "Measured with 5 seeds: at 0.5, the shared weights' transfer turned on "
            "the seed (held-out prospects of the sample graph, 5 iterations: one "
            "seed at 0.80 of the oracle; an agent's held-out leads down to 0.96); at "
            "0.25 every seed is at 0.98 or more and 0.95 or more, and synthetic-16's "
            "worst seed keeps 0.99 (0.88 without explorers). 0 turns it off."
        ),
    )
    explore_decay: float = Field(
        1.0,
        ge=0.0,
        le=1.0,
        description=(
            "Each iteration's explore_share is the previous one's x this (default "
            "1.0: a quarter of every group explores uniformly all run long; below 1 "
            "it narrows as the policy learns, e.g. 0.5: 0.25, 0.125, 0). Measured "
            "on synthetic-16 (benchmarks/bench_learning.py): decaying left the "
            "trained greedy email below best-of-N random at the same N on more "
            "prospects (0.5 from a share of 0.5: 2 of 6, against 3 of 6 for 0.25 "
            "kept)."
        ),
    )
    polish_share: float = Field(
        0.25,
        ge=0.0,
        le=1.0,
        description=(
            "Share of each group's rollouts (default 0.25, rounded: 4 of a group of "
            "16, taken from the on-policy ones) that search around the prospect's "
            "best email judged so far: each replays that email's walk and changes "
            "one of its style choices, to one the run has not judged on that walk "
            "(local search from the best state found, as Go-Explore returns to a "
            "promising state before exploring). "
            "Off-policy like the explorers: judged, and may become the elite, but "
            "no part of GRPO's surrogate. Without an elite, or once every neighbour "
            "of it is judged, a polisher is an on-policy sample. 0 turns it off."
        ),
    )
    avoid_repeats: bool = Field(
        True,
        description=(
            "Sampled rollouts draw their style again (up to 8 times) when the email "
            "it would write, walk and style, was already sampled in the run (default "
            "true): sampling without replacement, as a tabu list, so a run's judged "
            "emails are distinct and none of its budget is spent judging an email twice. "
            "The walk itself is drawn from the policy as ever."
        ),
    )
    sil_coef: float = Field(
        1.0,
        ge=0.0,
        description=(
            "Weight of self-imitation (default 1.0): after the GRPO epochs, each "
            "prospect whose best email judged so far beats its group's mean reward "
            "(SIL's (R - V)+ with the group mean as V) takes Adam steps on sil_coef x "
            "the mean log-probability of that email's decisions. They move the "
            "prospect's own weights only, which its greedy email adds to the shared "
            "ones; prospects the policy has not trained on are written for by the "
            "shared weights alone, which GRPO trains. 0 turns it off."
        ),
    )
    sil_steps: int = Field(
        16,
        ge=0,
        le=64,
        description=(
            "Adam steps per iteration and prospect on self-imitation, after the "
            "GRPO epochs (default 16; then on, up to 4x as many, while one of the "
            "elite's choices is not yet the greedy one): so the greedy email becomes "
            "the best one found within the iteration that found it (4 left it one "
            "choice short on some seeds). They cost microseconds: an elite is a "
            "dozen decisions."
        ),
    )
