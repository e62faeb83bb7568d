"""The rollout driver: one agent conversation, from the scenario to a finalized email.

It owns the message list (OpenAI chat format), runs the tools, and enforces the
depth limit as `RunSpec.depth` defines it (codreamer/runs/spec.py: at most
`depth + 1` exploring turns, and `2 * (depth + 2)` turns in all); a rollout that
runs out is finalized with what it has and marked `auto_finalized`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from codreamer.agent.policies.base import Policy, ToolCall, ToolResult, Turn
from codreamer.agent.tools import FINALIZE_EMAIL, AgentTools
from codreamer.agent.trajectory import Trajectory, TrajectoryMeta
from codreamer.errors import CoDreamerError
from codreamer.graph.store import GraphStore
from codreamer.models import CUSTOMER_JOB, FinalEmail, Scenario, Sender

SYSTEM_PROMPT = (
    "You are a sales research agent. Walk the knowledge graph with the tools, starting "
    "at the seed node, to build a step-by-step argument from the customer's job to a "
    "product feature. Then call finalize_email with a concise, personal email to the "
    "prospect that uses those facts, asks for the goal as a question, and cites the "
    "ids of the nodes it used, in order."
)


def system_prompt(sender: Sender, base: str = SYSTEM_PROMPT) -> str:
    """The system prompt (a policy's own, or the default) saying who sends the email, so
    it is signed, never templated."""
    return (
        f"{base} You are writing as {sender.describe()}: sign the email with that "
        "name, and never leave a placeholder such as [Your Name]."
    )


@dataclass
class RolloutEnv:
    """What a rollout sees: one run's graph, tools (with its node scores), a scenario."""

    store: GraphStore
    tools: AgentTools
    scenario: Scenario
    depth: int
    sender: Sender = field(default_factory=Sender)
    _prompt: str | None = field(default=None, init=False, repr=False)

    def user_prompt(self) -> str:
        if self._prompt is None:
            self._prompt = user_prompt(self.scenario, self.seed_node, self.sender)
        return self._prompt

    def system_prompt(self, base: str = SYSTEM_PROMPT) -> str:
        return system_prompt(self.sender, base)

    @property
    def seed_node(self) -> str:
        for s in self.scenario.seed_nodes:
            if s in self.store:
                return s

        return CUSTOMER_JOB


def user_prompt(scenario: Scenario, seed_node: str, sender: Sender | None = None) -> str:
    prospect = scenario.prospect.model_dump(exclude_none=True)
    sender = sender or Sender()
    return (
        f"Prospect: {json.dumps(prospect, ensure_ascii=False)}\n"
        f"Sender: {json.dumps(sender.model_dump(exclude_none=True), ensure_ascii=False)}\n"
        f"Goal: {scenario.goal}\n"
        f"Start at node: {seed_node!r}."
    )


# How much of a malformed tool call's text the tool result quotes back to the model.
MAX_ECHO_CHARS = 300


def _replayed_arguments(call: ToolCall) -> str:
    """The arguments text the history keeps: what the model sent when it was valid
    JSON, else the parsed (or empty) object. A broken text replayed to a real
    server makes it fail the whole request (llama.cpp answers HTTP 500); the tool
    result tells the model what it sent instead."""
    if call.raw_arguments is not None and call.error is None:
        return call.raw_arguments
    return json.dumps(call.arguments, ensure_ascii=False)


def _assistant_message(turn: Turn) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": turn.content}
    if turn.tool_calls:
        msg["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": _replayed_arguments(c)},
            }
            for c in turn.tool_calls
        ]
    return msg


def _run_tool(env: RolloutEnv, call: ToolCall) -> tuple[ToolResult, str]:
    if call.error is not None:
        content: Any = {"error": call.error}
        if call.raw_arguments:
            raw = call.raw_arguments
            content["received"] = raw if len(raw) <= MAX_ECHO_CHARS else raw[:MAX_ECHO_CHARS] + "…"
        return ToolResult(call, content, ok=False), json.dumps(content, ensure_ascii=False)
    try:
        result, text = env.tools.call_json(call.name, call.arguments)
        return ToolResult(call, result), text
    except CoDreamerError as exc:  # unknown node / tool: the model sees why and goes on
        content = {"error": str(exc)}
        return ToolResult(call, content, ok=False), json.dumps(content, ensure_ascii=False)


def rollout(
    policy: Policy,
    env: RolloutEnv,
    rng: np.random.Generator,
    meta: TrajectoryMeta,
    *,
    greedy: bool = False,
    style_rng: np.random.Generator | None = None,
) -> Trajectory:
    """One rollout. `style_rng`, for the embedded policy only, draws how to write
    from a stream of its own (see EmbeddedPolicy.rollout_group)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": env.system_prompt(policy.system_prompt())},
        {"role": "user", "content": env.user_prompt()},
    ]
    session = (
        policy.start(env, rng, greedy)
        if style_rng is None
        else policy.start(env, rng, greedy, style_rng=style_rng)  # type: ignore[call-arg]
    )
    logprobs: list[float] = []
    decisions: list[Any] = []
    errors: list[str] = []
    info: dict[str, Any] = {}
    results: list[ToolResult] = []
    exploring_turns = 0
    email: FinalEmail | None = None
    auto = False
    # A hard cap on all turns, whatever the policy does (LLMs that never explore
    # nor finalize, e.g. replying in prose, are nudged by their session).
    max_turns = 2 * (env.depth + 2)
    for _ in range(max_turns):
        if exploring_turns > env.depth:
            turn = session.force_finalize("depth")
            auto = True
        else:
            turn = session.next_turn(results)
        messages.extend(turn.prelude)
        messages.append(_assistant_message(turn))
        logprobs.append(turn.logprob)
        decisions.extend(turn.decisions)
        errors.extend(turn.errors)
        info.update(turn.info)
        if turn.email is not None:
            email = turn.email
            for c in turn.tool_calls:
                if c.name == FINALIZE_EMAIL:
                    messages.append({"role": "tool", "tool_call_id": c.id, "content": "sent"})
            break
        if turn.exploring:
            exploring_turns += 1
        ran = [_run_tool(env, c) for c in turn.tool_calls]
        results = [r for r, _ in ran]
        for r, text in ran:
            if r.call.name == FINALIZE_EMAIL and r.ok:
                email = r.content
            messages.append({"role": "tool", "tool_call_id": r.call.id, "content": text})
        if email is not None:
            break
    if email is None:
        turn = session.force_finalize("turns")
        messages.extend(turn.prelude)
        messages.append(_assistant_message(turn))
        logprobs.append(turn.logprob)
        decisions.extend(turn.decisions)
        info.update(turn.info)
        email = turn.email or FinalEmail(subject="", body="", citations=[])
        auto = True
    meta = meta.model_copy(
        update={**info, "auto_finalized": auto, "errors": errors, "greedy": greedy}
    )
    return Trajectory.model_construct(
        messages=messages,
        final_email=email,
        logprobs=logprobs,
        reward=None,
        judgement=None,
        reward_components={},
        metadata=meta,
        decisions=decisions,
    )
