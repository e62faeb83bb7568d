"""The interface every policy implements, so one rollout driver serves them all.

A policy starts a *session* per rollout. The driver asks the session for its
next assistant turn (tool calls), runs the tools, hands the results back, and
enforces the depth limit. Policies act; learning is a trainer's job
(codreamer/train/base.py), which reads and updates the policy's parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from codreamer.agent.rollout import RolloutEnv
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
    trainable: bool

    def start(self, env: RolloutEnv, rng: np.random.Generator, greedy: bool) -> PolicySession: ...

    def state_dict(self) -> dict[str, Any]:
        """The policy's parameters (a trainer checkpoints its own state beside them)."""
        ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...
