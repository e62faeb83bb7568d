"""A rollout's record: OpenAI-format messages, the email, log-probs, reward, metadata.

Stored as JSONL (one trajectory a line). `to_art` / `from_art` (in
codreamer/train/art_adapter.py) convert losslessly to ART's `Trajectory`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from codreamer.models import FinalEmail, Judgement


class TrajectoryMeta(BaseModel):
    trajectory_id: str
    scenario_id: str
    iteration: int
    group: int = 0
    index: int = 0
    seed: int = 0
    policy: str = "embedded"
    greedy: bool = False
    auto_finalized: bool = False
    hops: int = 0
    style: dict[str, int] | None = None
    # Not drawn by the policy: an explorer (uniformly at random) or a polisher (the
    # prospect's best email with one style choice changed). Judged like the others,
    # but off-policy for the GRPO surrogate.
    explore: bool = False
    errors: list[str] = Field(default_factory=list)


class Trajectory(BaseModel):
    messages: list[dict[str, Any]]
    final_email: FinalEmail
    logprobs: list[float] = Field(default_factory=list)
    reward: float | None = None
    judgement: Judgement | None = None
    reward_components: dict[str, float] = Field(default_factory=dict)
    metadata: TrajectoryMeta
    # Policy-private record of each choice (candidates, features, chosen index),
    # needed to recompute log-probs in the GRPO update; never serialised.
    decisions: list[Any] = Field(default_factory=list, exclude=True, repr=False)

    @property
    def id(self) -> str:
        return self.metadata.trajectory_id

    @property
    def logprob(self) -> float:
        return float(sum(self.logprobs))
