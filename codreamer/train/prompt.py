"""The `prompt` trainer: learning without weights, for any LLM policy (DESIGN §3).

Each iteration, from the judged trajectories:

  * exemplars: the best emails, at most one per prospect first (diverse), never
    one that failed a sendability check (a gate or penalty of the judge, or a
    placeholder in the text), kept across iterations while nothing better comes;
  * instruction changes: for the criteria the judge scored lowest on average
    (below `threshold`), a rule adds one instruction to the section it belongs
    to. Optionally the policy's own LLM rewrites the weakest section instead
    (CODREAMER_PROMPT_LLM_SUGGESTIONS); an answer that is empty, too long or
    not plain text is dropped and the rule's suggestion stands.

Every change is a PromptSuggestion (section, hash of the text it replaces,
suggested body, rationale, expected impact), applied to the policy's prompt
for the next iteration; the loop writes every version to iter{i}_prompt.json.
Deterministic given the judged groups: exemplars and rules sort with total
orders, so a resumed run proposes what an uninterrupted one would.
"""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codreamer.agent.policies.prompt import (
    MAX_EXEMPLAR_BODY_CHARS,
    MAX_SECTION_CHARS,
    Exemplar,
    Prompt,
    PromptSuggestion,
    text_hash,
)
from codreamer.errors import LLMError
from codreamer.models import Prospect, Scenario

if TYPE_CHECKING:
    from codreamer.agent.trajectory import Trajectory
    from codreamer.config import Settings
    from codreamer.llm.client import ChatClient
    from codreamer.models import Judgement, Scenario


@dataclass(frozen=True)
class Rule:
    """What to tell the model when a criterion whose name contains `key` is weak."""

    key: str
    section: str
    instruction: str


# Matched against the judge's criterion names in order; the first match wins.
# Names are matched by stem so the rules keep working as the rubric's names move.
RULES: tuple[Rule, ...] = (
    Rule(
        "ground",
        "writing",
        "Use only facts you read with get_relevant_context, in your own words; never "
        "invent numbers, customers or results.",
    ),
    Rule(
        "argument",
        "research",
        "Read the context of each node on the path from the customer's job to a product "
        "feature, and present those steps in that order in the email.",
    ),
    Rule(
        "chain",
        "research",
        "Read the context of each node on the path from the customer's job to a product "
        "feature, and present those steps in that order in the email.",
    ),
    Rule(
        "relevan",
        "writing",
        "Choose the facts that matter most to this prospect's role, industry, tech stack "
        "and notes, and say why they matter to them.",
    ),
    Rule(
        "call_to_action",
        "ask",
        "End with exactly one question that asks for the goal; make no other request.",
    ),
    Rule("ask", "ask", "End with exactly one question that asks for the goal."),
    Rule(
        "personal",
        "writing",
        "Greet the prospect by first name and mention their company once; do not repeat "
        "their name.",
    ),
    Rule(
        "concis",
        "writing",
        "Keep the body between 60 and 150 words and the subject under 8 words.",
    ),
    Rule(
        "readab",
        "writing",
        "Write short sentences in plain paragraphs, with a greeting and a sign-off with "
        "the sender's name.",
    ),
    Rule(
        "placeholder",
        "writing",
        "Sign with the sender's real name; never write placeholders such as [Your Name].",
    ),
    Rule("english", "writing", "Write the whole email in English."),
    Rule(
        "spam",
        "writing",
        "No hype, pressure, ALL-CAPS words or exclamation marks.",
    ),
    Rule(
        "repet",
        "writing",
        "Say each thing once.",
    ),
)

# A criterion whose name contains one of these is a sendability check: an email
# scoring below 1 on it is never shown to the model as an example.
SENDABILITY_HINTS = ("english", "placeholder", "spam", "sendab", "penalt", "safety")
_PLACEHOLDER = re.compile(r"\[[A-Z][A-Za-z ]*\]|\{\{|\}\}|<[A-Za-z ]+>|\bTODO\b")


def failed_sendability(judgement: Judgement | None, body: str) -> list[str]:
    """The sendability checks an email failed (empty: none)."""
    failed = []
    if judgement is not None:
        for name, c in judgement.criteria.items():
            if any(h in name.lower() for h in SENDABILITY_HINTS) and c.score < 1.0:
                failed.append(name)
    if _PLACEHOLDER.search(body):
        failed.append("placeholder text")
    return failed


class PromptTrainer:
    name = "prompt"

    def __init__(
        self,
        *,
        exemplars: int = 2,
        threshold: float = 0.75,
        max_suggestions: int = 2,
        client: ChatClient | None = None,
        model: str | None = None,
        max_tokens: int | None = 400,  # None: the client's
    ) -> None:
        self.n_exemplars = exemplars
        self.threshold = threshold
        self.max_suggestions = max_suggestions
        self.client = client
        self.model = model
        self.max_tokens = max_tokens
        self.iteration = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> PromptTrainer:
        client = None
        if settings.prompt_llm_suggestions:
            # Deferred: the HTTP client (httpx) only when LLM suggestions are on.
            from codreamer.llm.client import ChatClient

            client = ChatClient.from_settings(settings)
        return cls(
            exemplars=settings.prompt_exemplars,
            client=client,
            model=settings.openai_model,
            max_tokens=settings.llm_max_tokens,
        )

    # -- the Trainer protocol ----------------------------------------------------
    def step(self, policy: Any, judged_groups: list[list[Trajectory]]) -> dict[str, float]:
        prompt: Prompt | None = policy.prompt
        if prompt is None:
            raise TypeError(f"the prompt trainer needs an LLM policy, not {policy.name!r}")
        self.iteration += 1
        trajs = [t for g in judged_groups for t in g if t.judgement is not None]
        scenarios = {t.metadata.scenario_id: _scenario_of(t) for t in trajs}
        sendable = {t.id for t in trajs if not failed_sendability(t.judgement, t.final_email.body)}
        exemplars = select_exemplars(
            list(prompt.exemplars) + [_exemplar(t, scenarios, self.iteration) for t in trajs],
            self.n_exemplars,
            eligible=sendable | {e.trajectory_id for e in prompt.exemplars},
        )
        suggestions = self.suggest(prompt, trajs)
        new = prompt.apply(suggestions).model_copy(update={"exemplars": exemplars})
        policy.prompt = new
        return {
            "exemplars": float(len(exemplars)),
            "suggestions": float(len(new.changes)),
            "prompt_version": float(new.version),
        }

    def state_dict(self) -> dict[str, Any]:
        # The prompt itself is the policy's state; the trainer only counts.
        return {"trainer": self.name, "iteration": self.iteration}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.iteration = int(state.get("iteration") or 0)

    # -- suggestions ---------------------------------------------------------------
    def suggest(self, prompt: Prompt, trajs: list[Trajectory]) -> list[PromptSuggestion]:
        weak = weak_criteria(trajs, self.threshold)
        out: list[PromptSuggestion] = []
        sections = dict(prompt.sections)
        for name, mean, weight, worst_reason in weak:
            rule = next((r for r in RULES if r.key in name.lower()), None)
            if rule is None or rule.section not in sections:
                continue
            current = sections[rule.section]
            if rule.instruction in current:
                continue  # already said: saying it twice does not help
            body = f"{current.rstrip()} {rule.instruction}"
            if len(body) > MAX_SECTION_CHARS:
                continue
            gain = weight * (1.0 - mean)
            out.append(
                PromptSuggestion(
                    section=rule.section,
                    original_hash=text_hash(prompt.sections[rule.section]),
                    suggested=body,
                    rationale=(
                        f"{name} averaged {mean:.2f} over {len(trajs)} judged emails "
                        f"(below {self.threshold:.2f}); the weakest said: {worst_reason}"
                    ),
                    expected_impact=(
                        f"raises {name} toward 1.0: up to +{gain:.3f} judged reward "
                        f"(weight {weight:.2f} x gap {1.0 - mean:.2f})"
                    ),
                    criterion=name,
                    iteration=self.iteration,
                )
            )
            sections[rule.section] = body
            if len(out) >= self.max_suggestions:
                break
        if self.client is not None and weak:
            llm = self._llm_suggestion(prompt, weak[0], out)
            if llm is not None:
                out = [s for s in out if s.section != llm.section] + [llm]
        return out

    def _llm_suggestion(
        self,
        prompt: Prompt,
        weakest: tuple[str, float, float, str],
        rule_based: list[PromptSuggestion],
    ) -> PromptSuggestion | None:
        """Ask the LLM to rewrite the section the weakest criterion belongs to."""
        name, mean, weight, reason = weakest
        rule = next((r for r in RULES if r.key in name.lower()), None)
        section = rule.section if rule else "writing"
        if section not in prompt.sections or self.client is None:
            return None
        current = prompt.sections[section]
        messages = [
            {
                "role": "system",
                "content": "You improve instructions for an email-writing assistant. "
                "Reply with the improved instruction text only, at most 80 words.",
            },
            {
                "role": "user",
                "content": f"Instruction: {current}\nProblem: emails score {mean:.2f} of 1 "
                f"on {name}: {reason}\nWrite the improved instruction.",
            },
        ]
        try:
            resp = self.client.chat(
                messages,
                model=self.model or "default",
                temperature=0.0,
                seed=self.iteration,
                # A suggestion is one instruction: 400 tokens at most.
                max_tokens=min(400, self.max_tokens or self.client.max_tokens),
            )
        except LLMError:
            return None
        text = " ".join((resp.content or "").split())
        if not _usable_instruction(text, current):
            return None
        return PromptSuggestion(
            section=section,
            original_hash=text_hash(current),
            suggested=text,
            rationale=f"{name} averaged {mean:.2f}; the LLM rewrote the {section} section",
            expected_impact=f"up to +{weight * (1.0 - mean):.3f} judged reward via {name}",
            criterion=name,
            source="llm",
            iteration=self.iteration,
        )


def weak_criteria(trajs: list[Trajectory], threshold: float) -> list[tuple[str, float, float, str]]:
    """(criterion, mean score, weight, reason of the worst email) for each criterion
    whose mean is below `threshold`, largest expected gain first (ties by name)."""
    by_name: dict[str, list[tuple[float, float, str]]] = {}
    for t in trajs:
        if t.judgement is None:
            continue
        for name, c in t.judgement.criteria.items():
            by_name.setdefault(name, []).append((c.score, c.weight, c.reason))
    out = []
    for name, rows in by_name.items():
        mean = statistics.fmean(r[0] for r in rows)
        if mean >= threshold:
            continue
        weight = max(r[1] for r in rows)
        worst = min(rows, key=lambda r: (r[0], r[2]))
        # A gate (weight 0) multiplies the total: count it as the whole reward.
        out.append((name, mean, weight if weight > 0 else 1.0, worst[2][:160]))
    out.sort(key=lambda x: (-(x[2] * (1.0 - x[1])), x[0]))
    return out


def select_exemplars(candidates: list[Exemplar], k: int, eligible: set[str]) -> list[Exemplar]:
    """The best k eligible emails, one per prospect before a second for any, no
    email twice. Order: reward, then the earlier iteration, then id (a total order)."""
    if k <= 0:
        return []
    pool = sorted(
        (c for c in candidates if c.trajectory_id in eligible and c.body.strip()),
        key=lambda e: (-e.reward, e.iteration, e.scenario_id, e.trajectory_id),
    )
    chosen: list[Exemplar] = []
    seen_bodies: set[str] = set()
    for pass_one in (True, False):
        used = {e.scenario_id for e in chosen}
        for e in pool:
            if len(chosen) >= k:
                return chosen
            if e.body in seen_bodies or (pass_one and e.scenario_id in used):
                continue
            chosen.append(e)
            seen_bodies.add(e.body)
            used.add(e.scenario_id)
    return chosen


def _exemplar(t: Trajectory, scenarios: dict[str, Scenario | None], iteration: int) -> Exemplar:
    sc = scenarios.get(t.metadata.scenario_id)
    who = t.metadata.scenario_id
    if sc is not None:
        p = sc.prospect
        role = " at ".join(x for x in (p.title, p.company) if x)
        who = f"{p.name}, {role}" if role else p.name
    return Exemplar(
        scenario_id=t.metadata.scenario_id,
        prospect=who,
        subject=t.final_email.subject[:200],
        body=t.final_email.body[:MAX_EXEMPLAR_BODY_CHARS],
        citations=list(t.final_email.citations)[:12],
        reward=round(float(t.reward or 0.0), 6),
        trajectory_id=t.id,
        iteration=iteration,
    )


def _scenario_of(t: Trajectory) -> Scenario | None:
    """The scenario a trajectory was written for, from its user message."""

    for m in t.messages:
        if m.get("role") != "user" or not isinstance(m.get("content"), str):
            continue
        for line in m["content"].splitlines():
            if line.startswith("Prospect: "):
                try:
                    prospect = Prospect.model_validate(json.loads(line[len("Prospect: ") :]))
                except ValueError:
                    return None
                return Scenario(id=t.metadata.scenario_id, prospect=prospect, goal="-")
        return None
    return None


def _usable_instruction(text: str, current: str) -> bool:
    if not text or text == current or len(text) > MAX_SECTION_CHARS or len(text.split()) < 5:
        return False
    if "```" in text or "{" in text or "<" in text:
        return False
    letters = sum(ch.isascii() and ch.isalpha() for ch in text)
    return letters >= 0.6 * len(text)
