"""The interface every policy implements, so one rollout driver serves them all.

A policy starts a *session* per rollout. The driver asks the session for its
next assistant turn (tool calls), runs the tools, hands the results back, and
enforces the depth limit. A policy only acts: trainers (codreamer/train/) learn,
by changing its weights or its prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from codreamer.agent.policies.prompt import Prompt
    from codreamer.agent.rollout import RolloutEnv
    from codreamer.agent.trajectory import Trajectory, TrajectoryMeta
    from codreamer.models import FinalEmail


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str | None = None  # what an LLM actually sent, when it did not parse
    error: str | None = None


@dataclass(slots=True)
class ToolResult:
    call: ToolCall
    content: Any  # JSON-serialisable result, or an error dict
    ok: bool = True


@dataclass(slots=True)
class Turn:
    """One assistant message. `email` set means the rollout is over."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    content: str | None = None
    logprob: float = 0.0
    email: FinalEmail | None = None
    exploring: bool = True  # counts toward the depth limit
    decisions: list[Any] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)  # merged into TrajectoryMeta
    # Messages the policy sent the model before this turn (e.g. a nudge after a
    # reply without tool calls), recorded ahead of the assistant message.
    prelude: list[dict[str, Any]] = field(default_factory=list)


class PolicySession(Protocol):
    def next_turn(self, results: list[ToolResult]) -> Turn:
        """The next assistant turn, given the results of the previous turn's tool calls."""

    def force_finalize(self, reason: str) -> Turn:
        """Out of turns (or the policy failed): finish with what has been gathered."""


class Policy(Protocol):
    name: str

    @property
    def prompt(self) -> Prompt | None:
        """An LLM policy's prompt (the prompt trainer edits it); None for the embedded one."""
        ...

    def start(self, env: RolloutEnv, rng: np.random.Generator, greedy: bool) -> PolicySession: ...

    def system_prompt(self) -> str:
        """The system message a rollout opens with."""
        ...

    def rollout_group(
        self,
        env: RolloutEnv,
        rng: np.random.Generator,
        metas: list[TrajectoryMeta],
        greedy: bool = False,
    ) -> list[Trajectory]:
        """One rollout per meta, in order; the results do not depend on scheduling."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """What the policy is (weights, prompt), to restore it bit-for-bit."""
        ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...
