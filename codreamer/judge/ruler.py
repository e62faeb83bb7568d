"""The `ruler` judge: ART's RULER ranks a whole group of emails at once (DESIGN §4).

Each email becomes a small `art.Trajectory` (the task, the prospect and goal,
the email as the assistant's answer, and the knowledge-graph evidence behind
its citations), the group goes to `art.rewards.ruler_score_group`, and each
RULER score comes back as a Judgement with one criterion, `ruler`, whose
reason is RULER's explanation. RULER is relative: its scores rank emails
within a group, which is what GRPO's group-relative advantages need.

The judge model and endpoint are configurable (`CODREAMER_JUDGE_MODEL`,
`CODREAMER_JUDGE_BASE_URL`, falling back to the policy's OpenAI settings); the
call goes through LiteLLM's `api_base` option, so any OpenAI-compatible server
works. Any failure raises JudgeError: the loop reports it and skips the group.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from codreamer.errors import ConfigError, JudgeError
from codreamer.judge.llm import evidence_block
from codreamer.llm.aio import run_sync
from codreamer.llm.art_loader import load_art
from codreamer.models import CriterionScore, FinalEmail, Judgement, Scenario, Sender
from codreamer.preflight import check_judge, judge_endpoint
from codreamer.tracing import init_tracing, op

if TYPE_CHECKING:
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore

TASK = (
    "You write a personalised B2B sales email that argues, step by step from the "
    "customer's job to a product feature, why the product fits the prospect, using "
    "only facts from the knowledge graph, citing the nodes used, and asking for the "
    "goal as a question."
)

RUBRIC = """
- An email whose citations are real knowledge-graph nodes, forming a connected argument from
  the customer's job to a product feature, and whose body uses their facts, scores higher
  than one that invents or skips steps. Citations marked NOT IN GRAPH are invented.
- It must ask for the goal as a question, address the prospect by name and company, and
  read as a short, natural, spam-free email with no placeholders.
- If one email is only slightly better than another, the difference in scores should be
  small; if it is much better, large.
"""


def litellm_model(model: str) -> str:
    """LiteLLM needs a provider prefix; a bare name means an OpenAI-compatible server."""
    return model if "/" in model else f"openai/{model}"


class RulerJudge:
    name = "ruler"

    def __init__(
        self,
        store: GraphStore | None,
        judge_model: str,
        base_url: str | None,
        api_key: str | None,
        *,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        rubric: str = RUBRIC,
        max_tokens: int = 1024,
    ) -> None:
        self.store = store
        self.judge_model = litellm_model(judge_model)
        self.rubric = rubric
        params: dict[str, Any] = {
            "timeout": timeout_s,
            "num_retries": max_retries,
            "max_tokens": max_tokens,  # every LLM request is bounded
        }
        if base_url:
            params["api_base"] = base_url
        # LiteLLM's OpenAI route insists on a key even for servers that ignore it.
        params["api_key"] = api_key or "unused"
        self.litellm_params = params

    @classmethod
    def from_settings(cls, store: GraphStore | None, settings: Settings) -> RulerJudge:
        check_judge("ruler", settings)
        base_url, api_key = judge_endpoint(settings)
        init_tracing(settings)
        return cls(
            store,
            settings.judge_model or settings.openai_model,
            base_url,
            api_key,
            timeout_s=settings.llm_timeout_s,
            max_retries=settings.llm_max_retries,
            max_tokens=settings.judge_max_tokens,
        )

    def trajectory_messages(
        self, email: FinalEmail, scenario: Scenario, sender: Sender | None = None
    ) -> list[dict[str, Any]]:
        p = scenario.prospect.model_dump(exclude_none=True)
        who = (
            f"\nSender: {json.dumps(sender.model_dump(exclude_none=True), ensure_ascii=False)}"
            if sender is not None
            else ""
        )
        check = f"Knowledge-graph check. {evidence_block(self.store, email)}"
        answer = f"Subject: {email.subject}\n\n{email.body}\n\nCitations: " + (
            ", ".join(email.citations) or "(none)"
        )
        return [
            {"role": "system", "content": TASK},
            {
                "role": "user",
                "content": f"Prospect: {json.dumps(p, ensure_ascii=False)}{who}\n"
                f"Goal: {scenario.goal}",
            },
            {"role": "assistant", "content": answer},
            {"role": "user", "content": check},
        ]

    @op("codreamer.judge.ruler")
    def score_group(
        self, emails: list[FinalEmail], scenario: Scenario, sender: Sender | None = None
    ) -> list[Judgement]:
        if not emails:
            return []

        try:
            art = load_art()
        except ConfigError as exc:
            raise JudgeError(f"ruler judge: {exc}") from None
        # Identical emails get one trajectory: RULER would otherwise print a warning
        # to stdout (spoiling `--json` output) and score them as one anyway.
        keys = [e.model_dump_json() for e in emails]
        unique = list(dict.fromkeys(keys))
        first = {k: emails[keys.index(k)] for k in unique}
        group = art.TrajectoryGroup(
            art.Trajectory(
                messages_and_choices=self.trajectory_messages(first[k], scenario, sender),
                reward=0.0,
            )
            for k in unique
        )
        try:
            scored = run_sync(
                art.rewards.ruler_score_group(
                    group,
                    self.judge_model,
                    extra_litellm_params=self.litellm_params,
                    rubric=self.rubric,
                    swallow_exceptions=False,
                )
            )
        except Exception as exc:  # LiteLLM, HTTP and parsing errors all mean "no scores"
            raise JudgeError(f"ruler judge: {type(exc).__name__}: {_first_line(exc)}") from None
        if scored is None or len(scored.trajectories) != len(unique):
            raise JudgeError("ruler judge: RULER returned no scores for the group")
        by_key = {k: self._judgement(t) for k, t in zip(unique, scored.trajectories, strict=True)}
        return [by_key[k] for k in keys]

    @staticmethod
    def _judgement(t: Any) -> Judgement:
        score = min(1.0, max(0.0, float(t.reward)))
        reason = next(
            (log.split(":", 1)[1].strip() for log in reversed(t.logs) if log.startswith("RULER")),
            "RULER score",
        )
        return Judgement(
            total=score, criteria={"ruler": CriterionScore(score=score, weight=1.0, reason=reason)}
        )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else ""
