"""The `openai` policy: the agent loop on any OpenAI-compatible chat-completions
endpoint with tool calling (DESIGN §3), using the same three tools.

Each session keeps the conversation exactly as the rollout driver records it
(same assistant and tool messages), sends it with TOOL_SCHEMAS, and turns the
reply's tool calls into ToolCall objects. What real models do, and what
happens:

  * malformed JSON arguments -> a ToolCall with `error` set and `raw_arguments`
    kept; the history replays valid JSON (`{}`), never the broken text (real
    servers answer a replayed broken call with HTTP 500), and the tool result
    tells the model what it sent and why it failed, so it can try again;
  * an unknown tool name -> passed on; the driver answers with an error;
  * no tool call at all -> a user message before the next request (a nudge the
    first time, a short reminder after), so the history never ends in two
    assistant messages (servers answer that with HTTP 400); each such turn
    counts toward the depth limit, so the driver auto-finalizes at the cap;
  * `finalize_email` without citations -> filled with the nodes whose evidence
    was gathered (the trajectory keeps what the model actually sent);
  * citations of unknown nodes -> kept; the judge sees and scores them;
  * a runaway answer -> every request carries `max_tokens`
    (CODREAMER_LLM_MAX_TOKENS, or what suits the served model), so one reply
    cannot fill the context;
  * timeouts, 429, 5xx -> bounded retries in the client; after that the
    rollout fails with PolicyError (a dead endpoint must not pass for a model).

`force_finalize` (out of turns) composes the email from the gathered evidence
with the same templates as the embedded policy, so a run always gets an email.
The policy only acts. Its prompt (sections and few-shot exemplars,
codreamer/agent/policies/prompt.py) is what the `prompt` trainer changes
between iterations; it is part of the policy's state, so a resumed run
continues with the prompt it had reached.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from codreamer.agent.policies.base import ToolCall, ToolResult, Turn
from codreamer.agent.policies.prompt import Prompt
from codreamer.agent.policies.shared import PolicyBase
from codreamer.agent.rollout import (
    RolloutEnv,
    _assistant_message,
    rollout,
)
from codreamer.agent.tools import (
    FINALIZE_EMAIL,
    GET_CONNECTED_NODES,
    GET_RELEVANT_CONTEXT,
    TOOL_SCHEMAS,
)
from codreamer.agent.writer import write_email
from codreamer.errors import ConfigError, LLMError, PolicyError
from codreamer.llm.client import ChatClient, ChatResponse
from codreamer.models import FinalEmail
from codreamer.tracing import init_tracing

if TYPE_CHECKING:
    from codreamer.agent.trajectory import Trajectory, TrajectoryMeta
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore

NUDGE = (
    "Please continue by calling a tool: get_relevant_context or get_connected_nodes to "
    "explore the graph, or finalize_email to send the email."
)
# After the nudge, each further reply without a tool call gets this shorter line:
# the history must never end in two assistant messages.
REMINDER = "Call a tool now, or finalize_email with the email."


@dataclass(slots=True)
class LLMDecision:
    """One assistant turn's record in Trajectory.decisions: the raw choice the model
    returned (token log-probs included), or None when the turn was composed here.
    The ART adapter trains on these choices."""

    choice: dict[str, Any] | None
    model: str | None = None


class OpenAIPolicy(PolicyBase):
    name = "openai"

    def __init__(
        self,
        store: GraphStore,
        client: ChatClient,
        model: str,
        *,
        temperature: float = 1.0,
        logprobs: bool = True,
        concurrency: int = 4,
        max_tokens: int | None = None,  # None: the client's (see llm/reply_cap.py)
        prompt: Prompt | None = None,
    ) -> None:
        self.store = store
        self.client = client
        self.model = model
        self.temperature = temperature
        self.logprobs = logprobs
        self.concurrency = max(1, concurrency)
        self.max_tokens = max_tokens
        self.prompt: Prompt = prompt or Prompt()

    @classmethod
    def from_settings(
        cls,
        store: GraphStore,
        settings: Settings,
        model: str | None = None,
        prompt: Prompt | None = None,
    ) -> OpenAIPolicy:
        if not settings.openai_base_url and not settings.openai_api_key:
            raise ConfigError(
                "policy openai needs OPENAI_BASE_URL (and OPENAI_API_KEY if required)"
            )
        init_tracing(settings)
        return cls(
            store,
            ChatClient.from_settings(settings),
            model or settings.openai_model,
            temperature=settings.llm_temperature,
            logprobs=settings.llm_logprobs,
            concurrency=settings.llm_concurrency,
            max_tokens=settings.llm_max_tokens,
            prompt=prompt,
        )

    def model_name(self) -> str:
        return self.model

    def start(self, env: RolloutEnv, rng: np.random.Generator, greedy: bool) -> OpenAISession:
        return OpenAISession(self, env, rng, greedy)

    def rollout_group(
        self,
        env: RolloutEnv,
        rng: np.random.Generator,
        metas: list[TrajectoryMeta],
        greedy: bool = False,
    ) -> list[Trajectory]:
        """A group's rollouts, at most `concurrency` at once. Seeds are drawn up front,
        so the results do not depend on how the threads are scheduled."""
        seeds = rng.integers(0, 2**63 - 1, size=len(metas))
        workers = min(self.concurrency, max(1, len(metas)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rollout") as pool:
            futures = [
                pool.submit(rollout, self, env, np.random.default_rng(int(s)), m, greedy=greedy)
                for s, m in zip(seeds, metas, strict=True)
            ]
            return [f.result() for f in futures]

    def state_dict(self) -> dict[str, Any]:
        # No secrets: this lands in iter{k}_policy.json.
        return {
            "policy": self.name,
            "model": self.model,
            "base_url": self.client.base_url,
            "prompt": self.prompt.model_dump(mode="json"),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self._load_prompt(state)

    def _load_prompt(self, state: dict[str, Any]) -> None:
        if state.get("prompt"):
            self.prompt = Prompt.model_validate(state["prompt"])


class OpenAISession:
    """One rollout: the conversation so far, and the evidence it has gathered."""

    def __init__(
        self, policy: OpenAIPolicy, env: RolloutEnv, rng: np.random.Generator, greedy: bool
    ) -> None:
        self.policy = policy
        self.env = env
        self.greedy = greedy
        self.seed = int(rng.integers(0, 2**31 - 1))
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": env.system_prompt(policy.system_prompt())},
            {"role": "user", "content": env.user_prompt()},
        ]
        self.evidence: list[str] = []  # nodes whose context was read, in order
        self.touched: list[str] = []  # nodes whose neighbours were listed
        self.pending: list[str] = []  # context calls of the last turn, not yet answered
        self.nudged = False
        self.turns = 0

    # -- the conversation ------------------------------------------------------
    def _record_results(self, results: list[ToolResult]) -> None:
        self.pending = []
        for r in results:
            self.messages.append(
                {
                    "role": "tool",
                    "tool_call_id": r.call.id,
                    "content": _tool_text(r.content),
                }
            )
            if not r.ok:
                continue
            if r.call.name == GET_RELEVANT_CONTEXT and isinstance(r.content, dict):
                _add(self.evidence, r.content.get("node_id"))
            elif r.call.name == GET_CONNECTED_NODES:
                _add(self.touched, r.call.arguments.get("node_id"))

    def _ask(self) -> ChatResponse:
        p = self.policy
        try:
            return p.client.chat(
                self.messages,
                model=p.model_name(),
                tools=TOOL_SCHEMAS,
                tool_choice="auto",
                temperature=0.0 if self.greedy else p.temperature,
                seed=self.seed + self.turns,
                logprobs=True if p.logprobs else None,
                max_tokens=p.max_tokens,
            )
        except LLMError as exc:
            raise PolicyError(f"{p.name} policy: {exc}") from None

    def next_turn(self, results: list[ToolResult]) -> Turn:
        self._record_results(results)
        errors: list[str] = []
        prelude: list[dict[str, Any]] = []
        last = self.messages[-1]
        if last["role"] == "assistant" and not last.get("tool_calls"):
            # The model answered in prose: say how to go on, so the history never
            # ends in two assistant messages.
            prelude.append({"role": "user", "content": REMINDER if self.nudged else NUDGE})
            self.messages.extend(prelude)
            errors.append("no tool call: reminded" if self.nudged else "no tool call: nudged")
            self.nudged = True
        resp = self._ask()
        self.turns += 1
        calls = [self._tool_call(i, tc) for i, tc in enumerate(resp.tool_calls)]
        decision = LLMDecision(_with_call_ids(resp.choice, calls), self.policy.model_name())
        turn = Turn(
            tool_calls=calls,
            content=resp.content,
            logprob=resp.logprob_sum() or 0.0,
            decisions=[decision],
            errors=errors + [c.error for c in calls if c.error],
            prelude=prelude,
        )
        final = next((c for c in calls if c.name == FINALIZE_EMAIL and c.error is None), None)
        if final is not None:
            turn.email, note = self._email_from(final)
            turn.exploring = False
            turn.info = {"hops": self._hops()}
            if note:
                turn.errors.append(note)
        if not calls:
            turn.errors.append("no tool call")
        self.messages.append(_assistant_message(turn))
        self.pending = [
            str(c.arguments.get("node_id"))
            for c in calls
            if c.name == GET_RELEVANT_CONTEXT and c.error is None
        ]
        return turn

    def _tool_call(self, i: int, tc: dict[str, Any]) -> ToolCall:
        fn_raw = tc.get("function")
        fn: dict[str, Any] = fn_raw if isinstance(fn_raw, dict) else {}
        name = str(fn.get("name") or "")
        # Our own id, not the server's: servers make random ones (llama.cpp does), and
        # a seeded run must write the same trajectory every time, resumed or not.
        call_id = f"call_{self.turns}_{i}"
        raw = fn.get("arguments")
        if isinstance(raw, dict):  # some servers send an object, not a JSON string
            return ToolCall(call_id, name, raw, raw_arguments=json.dumps(raw, ensure_ascii=False))
        raw_s = raw if isinstance(raw, str) else ""
        try:
            args = json.loads(raw_s) if raw_s.strip() else {}
        except json.JSONDecodeError as exc:
            return ToolCall(
                call_id,
                name,
                {},
                raw_arguments=raw_s,
                error=f"malformed JSON arguments for {name or 'tool'}: {exc.msg}",
            )
        if not isinstance(args, dict):
            return ToolCall(
                call_id,
                name,
                {},
                raw_arguments=raw_s,
                error=f"arguments for {name or 'tool'} must be a JSON object",
            )
        if name == FINALIZE_EMAIL and not str(args.get("body") or "").strip():
            return ToolCall(
                call_id,
                name,
                args,
                raw_arguments=raw_s,
                error="finalize_email needs a non-empty body",
            )
        # raw_arguments keeps the exact text the model sent, for the trajectory.
        return ToolCall(call_id, name, args, raw_arguments=raw_s)

    def _email_from(self, call: ToolCall) -> tuple[FinalEmail, str | None]:
        args = call.arguments
        cites = args.get("citations")
        note = None
        if isinstance(cites, list) and cites:
            citations = [str(c) for c in cites]
        else:
            citations = list(self.evidence or self.touched)
            note = f"finalize_email without citations: filled from gathered evidence {citations}"
            call.arguments = {**args, "citations": citations}
        email = FinalEmail(
            subject=str(args.get("subject") or ""), body=str(args.get("body")), citations=citations
        )
        return email, note

    def _hops(self) -> int:
        return max(0, len(self.evidence or self.touched) - 1)

    def force_finalize(self, reason: str) -> Turn:
        """Compose the email from the evidence gathered (including context calls of the
        last turn the driver ran but did not hand back), as the embedded policy would."""
        store = self.env.store
        path: list[str] = []
        for n in (self.evidence or self.touched) + self.pending:
            if n in store:
                _add(path, n)
        email = write_email(store, path, self.env.scenario, sender=self.env.sender)
        call = ToolCall(
            f"call_{self.turns}_{FINALIZE_EMAIL}",
            FINALIZE_EMAIL,
            {"subject": email.subject, "body": email.body, "citations": email.citations},
        )
        self.turns += 1
        return Turn(
            tool_calls=[call],
            email=email,
            exploring=False,
            decisions=[LLMDecision(None)],
            info={"hops": max(0, len(path) - 1)},
        )


def _with_call_ids(choice: dict[str, Any], calls: list[ToolCall]) -> dict[str, Any]:
    """The raw choice with its tool calls' ids replaced by ours (a copy), so the
    choice kept for training matches the history's tool messages."""
    msg = choice.get("message")
    if not isinstance(msg, dict):
        return choice
    raw = msg.get("tool_calls")
    if not isinstance(raw, list) or not calls:
        return choice
    dicts = [tc for tc in raw if isinstance(tc, dict)]
    tool_calls = [{**tc, "id": c.id} for tc, c in zip(dicts, calls, strict=False)]
    return {**choice, "message": {**msg, "tool_calls": tool_calls}}


def _tool_text(content: Any) -> str:
    """The tool message text exactly as the driver writes it (AgentTools.call_json)."""
    if hasattr(content, "model_dump_json"):
        return str(content.model_dump_json())
    return json.dumps(content, ensure_ascii=False)


def _add(seq: list[str], node: Any) -> None:
    if isinstance(node, str) and node and node not in seq:
        seq.append(node)
