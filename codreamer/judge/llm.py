"""The `llm` judge: an LLM scores each email on the rubric's criteria (DESIGN §4).

One structured-output call per email (`response_format: json_schema`, strict),
a group's emails judged concurrently (at most `llm_concurrency` at once). The
model gives each criterion a score in [0, 1] and a reason; the total is
computed here exactly as the rubric does (`rubric.combine`: the total fitted on
readers' grades, `rubric/total.py`), so an LLM cannot pad its own total and
rewards stay comparable with the rubric's.

The prompt carries the evidence: each cited node's content, or that it is not
in the graph, and whether consecutive citations are linked by an edge, so the
LLM can judge grounding and the argument chain on facts rather than trust.

A failed call (after the client's retries) or an answer that does not fit the
schema, twice, raises JudgeError: the loop reports it and skips the group.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from codreamer.errors import ConfigError, JudgeError, LLMError
from codreamer.judge.rubric import CRITERIA, combine
from codreamer.judge.rubric.total import FittedTotal, default_total
from codreamer.llm.client import ChatClient
from codreamer.models import CriterionScore, FinalEmail, Judgement, Scenario, Sender
from codreamer.preflight import judge_endpoint
from codreamer.tracing import init_tracing, op

if TYPE_CHECKING:
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore

CRITERIA_HELP = {
    "argument": "the cited nodes, as a set (their order does not matter; 'Customer Job' is "
    "implicit), connect the customer's job to a 'Product Feature' node through the graph, "
    "the body tells those steps in that order, and every citation supports something the "
    "body says",
    "grounding": "each cited fact is expressed in the body; a faithful paraphrase counts as "
    "much as a quote; long pasted node text is worse; numbers, named customers or results "
    "that no cited node supports count against it",
    "relevance": "the email fits what is known of the prospect (their notes, or only their "
    "title, industry and stack, judged by meaning); the same email can suit one prospect "
    "and not another",
    "specificity": "it uses the specifics the seller knew about the prospect (the numbers, "
    "names and incidents in their notes), not only their topic; 1 when nothing specific is "
    "known",
    "product": "it says plainly what the product does for this problem",
    "solution_fit": "of the product's features, it pitches the one that fits what is known "
    "of the prospect (1 when the product has one feature or nothing is known)",
    "own_job": "1 unless it tells the reader what their own company does (the seller's view "
    "of the customer restated to them as news)",
    "fit": "pitched at the reader: shorter for senior readers (an executive reads about "
    "45-95 words, a practitioner up to 150), a formal register ('Dear ...') in a regulated "
    "industry or to a non-technical executive and a peer one ('Hi ...') to technical people "
    "and managers, framed as what goes wrong, what changes, or how it works as the "
    "reader's role reads for (engineers: how; compliance and operations: what goes wrong; "
    "finance, commercial and executives: what changes)",
    "call_to_action": "exactly one clear ask, for the goal, as a question or a statement "
    "('I would welcome 20 minutes next week')",
    "personalisation": "the reader's name, company and situation, without stuffing",
    "concision": "a busy reader finishes it: about 50-150 words is best; 200+ is too long",
    "readability": "clear sentences, prose paragraphs, a greeting and a sign-off",
    "contradiction": "1 if nothing contradicts the cited facts; lower for numbers, "
    "quantities, negations or names that say otherwise than the evidence, and for an "
    "invented customer, case study or result",
    "deception": "1 if honest; lower for a fake reply or forward thread ('Re:' on a first "
    "email, 'as discussed'), fake urgency or scarcity, a subject not about the body, "
    "guarantees, the wrong name or company",
    "tone": "1 if courteous; lower for passive-aggression ('my last three emails'), shaming "
    "or guilt-tripping, condescension, insults or threats",
    "grammar": "1 if every sentence is complete and grammatical; lower for fragments, a "
    "capitalised word mid-sentence, dangling connectors, run-ons, agreement errors",
    "naturalness": "1 if it reads as a person wrote it for this reader; lower for facts glued "
    "on after stock lead-ins ('This is where the savings are: ...'), sentences with "
    "nothing behind them, notes written for whoever built the knowledge graph "
    "('Understanding X is crucial because...'), stock sales phrases",
    "english": "1 if written in English, 0 if not (a gate: 0 sinks the email)",
    "sendability": "1 if a person could send it as is; lower for each problem: placeholders "
    "([Your Name], {{x}}; a subject tag like [Discovery Call] is fine), node ids or talk about "
    "the graph, the name or a phrase repeated, several asks, fragments, insults, threats or "
    "pressure, credential requests or odd links, 'as an AI language model', a paragraph in "
    "another language, the customer's own business pitched as the product, sender and "
    "recipient confused, word salad, padding, the wrong product, invented claims "
    "(a multiplier: about 0.5 for one serious problem, never 0 for these)",
}

SYSTEM = (
    "You are a strict judge of B2B sales emails, scoring them the way an experienced "
    "sales reader would. Score the email on each criterion from 0 (fails) to 1 "
    "(excellent) and give a one-sentence reason. Use the evidence given: a citation "
    "marked NOT IN GRAPH is invented. Criteria:\n"
    + "\n".join(f"- {k}: {v}" for k, v in CRITERIA_HELP.items())
)


# Bounds on the answer: a reason is one sentence. Without a maxLength a small model
# can ramble until max_tokens cuts the JSON off mid-string (an unparseable answer);
# servers that constrain output to the schema (llama.cpp) stop the string in time.
MAX_REASON_CHARS = 120


def response_schema(names: tuple[str, ...]) -> dict[str, Any]:
    item = {
        "type": "object",
        "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "reason": {"type": "string", "maxLength": MAX_REASON_CHARS},
        },
        "required": ["score", "reason"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "criteria": {
                "type": "object",
                "properties": {n: item for n in names},
                "required": list(names),
                "additionalProperties": False,
            }
        },
        "required": ["criteria"],
        "additionalProperties": False,
    }


def evidence_block(store: GraphStore | None, email: FinalEmail) -> str:
    if store is None:
        return "No knowledge graph is available: judge grounding from the email alone."
    lines = []
    cited = list(dict.fromkeys(email.citations))
    known = [c for c in cited if c in store]
    for c in cited:
        if c in store:
            links = [n for n in known if n != c and store.edge(c, n)]
            to = f" (edges to: {', '.join(links)})" if links else ""
            lines.append(f"- {c}{to}: {store.content(c)}")
        else:
            lines.append(f"- {c}: NOT IN GRAPH")
    return "Cited nodes (a set; order irrelevant):\n" + (
        "\n".join(lines) if lines else "(no citations)"
    )


class LLMJudge:
    name = "llm"

    def __init__(
        self,
        store: GraphStore | None,
        client: ChatClient,
        model: str,
        *,
        concurrency: int = 4,
        total: FittedTotal | None = None,
        max_tokens: int = 1024,
    ) -> None:
        self.store = store
        self.client = client
        self.model = model
        self.concurrency = max(1, concurrency)
        self.max_tokens = max_tokens
        self.total = total or default_total()
        self.names = tuple(CRITERIA)
        self.response_format = {
            "type": "json_schema",
            "json_schema": {
                "name": "email_judgement",
                "strict": True,
                "schema": response_schema(self.names),
            },
        }

    @classmethod
    def from_settings(cls, store: GraphStore | None, settings: Settings) -> LLMJudge:
        base_url, api_key = judge_endpoint(settings)
        if not base_url and not api_key:
            raise ConfigError("judge llm needs OPENAI_BASE_URL or CODREAMER_JUDGE_BASE_URL")
        init_tracing(settings)
        client = ChatClient.from_settings(settings, base_url=base_url, api_key=api_key)
        return cls(
            store,
            client,
            settings.judge_model or settings.openai_model,
            concurrency=settings.llm_concurrency,
            max_tokens=settings.judge_max_tokens,
        )

    @op("codreamer.judge.llm")
    def score_group(
        self, emails: list[FinalEmail], scenario: Scenario, sender: Sender | None = None
    ) -> list[Judgement]:
        if len(emails) <= 1 or self.concurrency == 1:
            return [self.judge(e, scenario, sender) for e in emails]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(emails))) as pool:
            return list(pool.map(lambda e: self.judge(e, scenario, sender), emails))

    def messages(
        self, email: FinalEmail, scenario: Scenario, sender: Sender | None = None
    ) -> list[dict[str, Any]]:
        p = scenario.prospect.model_dump(exclude_none=True)
        who = (
            f"Sender: {json.dumps(sender.model_dump(exclude_none=True), ensure_ascii=False)}\n"
            if sender is not None
            else ""
        )
        user = (
            f"Prospect: {json.dumps(p, ensure_ascii=False)}\n{who}Goal: {scenario.goal}\n\n"
            f"Subject: {email.subject}\n\n{email.body}\n\n"
            f"{evidence_block(self.store, email)}"
        )
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

    def judge(
        self, email: FinalEmail, scenario: Scenario, sender: Sender | None = None
    ) -> Judgement:
        messages = self.messages(email, scenario, sender)
        problem = ""
        for _ in range(2):  # one more try when the answer does not fit the schema
            try:
                resp = self.client.chat(
                    messages,
                    model=self.model,
                    temperature=0.0,
                    response_format=self.response_format,
                    max_tokens=self.max_tokens,
                )
            except LLMError as exc:
                raise JudgeError(f"llm judge: {exc}") from None
            try:
                return self.judgement(json.loads(resp.content or ""))
            except (ValueError, TypeError, KeyError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
        raise JudgeError(f"llm judge: answer does not fit the schema ({problem})")

    def judgement(self, data: dict[str, Any]) -> Judgement:
        raw = data["criteria"]
        criteria: dict[str, CriterionScore] = {}
        shares = self.total.shares()
        for name in self.names:
            item = raw[name]
            score = float(item["score"])
            if score != score:  # NaN
                raise ValueError(f"{name}: score is NaN")
            criteria[name] = CriterionScore(
                score=min(1.0, max(0.0, score)),
                weight=round(shares.get(name, 0.0), 4),
                reason=str(item.get("reason") or "")[:500],
            )
        scores = {n: c.score for n, c in criteria.items()}
        total = combine(scores, total=self.total)
        return Judgement(total=round(total, 6), criteria=criteria)
