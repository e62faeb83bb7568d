"""The rubric judge, v2 (DESIGN §4): deterministic, explainable, fast, for any email.

It measures what makes an outreach email persuasive and sendable, and is built
so that a template cannot max it:

    argument         0.25  the citations as a set (Customer Job implicit; only those the
                           body expresses) connect the customer's job to a Product
                           Feature in the graph, and the body tells the steps in order
    grounding        0.14  each cited fact is expressed, by meaning (stems + synonym
                           concepts); long copied runs cost; invented numbers, customers
                           and results cost
    fit              0.22  pitched at the reader (`codreamer.judge.rubric.fit`): length by
                           seniority, register, and the frame (what goes wrong, what
                           changes, how it works) the reader's role reads for
    call_to_action   0.11  one ask, for the goal
    personalisation  0.10  name, company, their situation, a personal subject
    concision        0.09  a body a busy reader finishes (50-150 words best)
    readability      0.09  sentence length, prose, paragraphs, greeting, sign-off

    relevance        gate  the supported facts and the body fit the prospect's title,
                           industry, tech stack and notes (so the best email differs
                           between prospects)

    total = weighted mean * (0.3 + 0.7 * relevance) * english * sendability

Relevance multiplies rather than adds (`combine`): a reader who does not find
their own problem in a cold email stops reading however polished it is, so a
well-formed email about the wrong facts must not keep most of the reward.

`english` is 0 for an empty or non-English email; `sendability` multiplies by
(1 - cost) for each thing that would stop a person sending it (placeholders, graph
talk, repetition, several asks, fragments, hostility, credential requests, AI
disclaimers, a foreign paragraph, the customer's business pitched back, sender and
recipient confused, word salad, padding, the wrong product, invented claims), so
the ranking holds among flawed emails. Every criterion has a one-line reason;
every number is in `codreamer.judge.rubric.bands`.

Without a graph (`store=None`) argument and grounding are not scored (weight 0,
reason "no graph") and relevance reads the body alone; without a prospect
profile relevance is not scored (its gate is 1); without a title fit is not
scored. Weights of what is scored are renormalised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codreamer.agent.reader import Reader, reader

# Every weight, band and cost stays importable from here.
from codreamer.judge.rubric.bands import *  # noqa: F403
from codreamer.judge.rubric.bands import (
    CHAIN_INCOMPLETE_MAX,
    CRITERIA,
    GATES,
    GRAPH_CRITERIA,
    PRODUCT_SHOWN,
    REL_GATE_FLOOR,
    WEIGHTED,
    RubricWeights,
)
from codreamer.judge.rubric.fit import fit
from codreamer.judge.rubric.graph_criteria import (
    allowed_numbers,
    argument,
    claims,
    grounding,
    pasted_share,
    profile_in_graph,
    read_citations,
    relevance,
)
from codreamer.judge.rubric.graph_index import GraphIndex
from codreamer.judge.rubric.sendability import sendability
from codreamer.judge.rubric.text_criteria import (
    ScenarioInfo,
    asks,
    call_to_action,
    clamp,
    concision,
    english,
    parse_email,
    personalisation,
    readability,
    scenario_info,
)
from codreamer.models import CriterionScore, FinalEmail, Judgement, Scenario, Sender

if TYPE_CHECKING:  # networkx stays out of the import path
    from codreamer.graph.store import GraphStore

__all__ = [
    "CRITERIA",
    "GATES",
    "GRAPH_CRITERIA",
    "WEIGHTED",
    "RubricJudge",
    "RubricWeights",
    "combine",
]


def combine(
    scores: dict[str, float], weights: dict[str, float], unscored: frozenset[str] = frozenset()
) -> float:
    """The total from criterion scores, shared by the rubric and the llm judge (so an
    LLM cannot pad its own total): the weighted mean of the WEIGHTED criteria (weights
    of what is scored, renormalised) times each gate; relevance gates from
    REL_GATE_FLOOR up. A gate in `unscored` (relevance with nothing known of the
    prospect) does not apply."""
    wsum = sum(weights[n] for n in WEIGHTED) or 1.0
    total = sum(weights[n] * scores[n] for n in WEIGHTED) / wsum
    for g in GATES:
        if g in unscored:
            continue
        v = scores[g]
        total *= REL_GATE_FLOOR + (1.0 - REL_GATE_FLOOR) * v if g == "relevance" else v
    return clamp(total)


# A scenario as the judge uses it: its parsed view, the text and numbers an email
# may state without a citation, and its profile as the graph can speak to it.
_ScenarioView = tuple[ScenarioInfo, str, frozenset[str], dict[str, float] | None, Reader | None]

_new = object.__new__
_set = object.__setattr__


def criterion(score: float, weight: float, reason: str) -> CriterionScore:
    """A CriterionScore of trusted values, built without validation: what pydantic's
    `model_construct` does, minus its per-field bookkeeping (a tenth of a judgement's
    time). tests/judge/test_rubric.py checks it equals the validated model."""
    c = _new(CriterionScore)
    _set(c, "__dict__", {"score": score, "weight": weight, "reason": reason})
    _set(c, "__pydantic_fields_set__", {"score", "weight", "reason"})
    _set(c, "__pydantic_extra__", None)
    _set(c, "__pydantic_private__", None)
    return c


class RubricJudge:
    """Scores emails against a graph (optional) and a scenario. Safe to share between
    threads for reads; its caches grow only with the graph and the scenarios seen."""

    name = "rubric"

    def __init__(self, store: GraphStore | None = None, weights: RubricWeights | None = None):
        self.store = store
        self.weights = weights or RubricWeights()
        self._w = self.weights.as_dict()
        self._index: GraphIndex | None = None
        self._scenarios: dict[tuple[Any, ...], _ScenarioView] = {}

    @property
    def index(self) -> GraphIndex | None:
        if self._index is None and self.store is not None:
            self._index = GraphIndex(self.store)
        return self._index

    def _scenario_info(self, scenario: Scenario) -> _ScenarioView:
        p = scenario.prospect
        key = (p.name, p.company, p.title, p.industry, tuple(p.tech_stack), p.notes, scenario.goal)
        hit = self._scenarios.get(key)
        if hit is None:
            # What the email may state without a citation: the prospect's own facts.
            allowed = " ".join(
                [scenario.goal, p.name, p.company or "", p.title or "", p.industry or "",
                 " ".join(p.tech_stack), p.notes or ""]
            )  # fmt: skip
            if len(self._scenarios) > 1024:
                self._scenarios.clear()
            info = scenario_info(scenario)
            index = self.index
            possible = profile_in_graph(index, info) if index is not None else None
            # A neutral reader (no title) gets no fit score.
            who = reader(p.title, p.industry) if (p.title or "").strip() else None
            hit = (info, allowed, allowed_numbers(allowed), possible, who)
            self._scenarios[key] = hit
        return hit

    # -- the judgement -------------------------------------------------------
    def ceiling(self, citations: list[str]) -> float:
        """An upper bound on the total of *any* email with these citations.

        Without a cited Product Feature no chain is complete, so argument is at
        most CHAIN_INCOMPLETE_MAX and every other criterion at most 1. The
        oracle uses this to skip walks that cannot beat the best found; keep it
        a true bound.
        """
        index = self.index
        if index is None or not citations:
            return 1.0
        for c in citations:
            node = index.resolve(c)
            if node is not None and node in index.feature_set:
                return 1.0
        wsum = sum(self._w.values()) or 1.0
        return 1.0 - self._w["argument"] * (1.0 - CHAIN_INCOMPLETE_MAX) / wsum

    def judge(
        self, email: FinalEmail, scenario: Scenario, sender: Sender | None = None
    ) -> Judgement:
        text = parse_email(email.subject or "", email.body or "")
        info, allowed, numbers, possible, who = self._scenario_info(scenario)
        if sender is not None:
            allowed = f"{allowed} {sender.name} {sender.company or ''} {sender.title or ''}"
        index = self.index
        weights = dict(self._w)
        results: dict[str, tuple[float, str]] = {}
        claim_list = claims(text, index, allowed, numbers)
        product_shown = True
        pasted = 0.0
        if index is None:
            cites = None
            for name in GRAPH_CRITERIA:
                results[name] = (0.0, "no graph: not scored")
                weights[name] = 0.0
        else:
            cites = read_citations(index, email.citations, text)
            pasted = pasted_share(index, text)
            results["argument"] = argument(index, cites, text)
            results["grounding"] = grounding(cites, text, claim_list, pasted)
            product_shown = bool(index.product_names & text.counts.keys()) or any(
                index.coverage(f, text.concepts) >= PRODUCT_SHOWN for f in index.features
            )
        unscored: frozenset[str] = frozenset()
        if info.has_profile:
            results["relevance"] = relevance(index, cites, text, info, possible)
        else:
            results["relevance"] = (0.0, "nothing known of the prospect: not scored")
            unscored = frozenset({"relevance"})
        fitted = fit(text, who)
        if fitted is None:
            results["fit"] = (0.0, "nothing known of the reader's role: not scored")
            weights["fit"] = 0.0
        else:
            results["fit"] = fitted
        found_asks = asks(text, info)
        results["call_to_action"] = call_to_action(text, info, found_asks)
        results["personalisation"] = personalisation(text, info)
        results["concision"] = concision(text)
        results["readability"] = readability(text)
        results["english"] = english(text)
        mult, why, _ = sendability(
            text, info, index, claim_list, product_shown, pasted, found_asks, sender
        )
        results["sendability"] = (mult, why)

        wsum = sum(weights[n] for n in WEIGHTED) or 1.0
        total = round(combine({n: v for n, (v, _) in results.items()}, weights, unscored), 4)
        criteria = {
            n: criterion(
                round(clamp(results[n][0]), 4),
                round(weights[n] / wsum, 4) if n in weights else 0.0,
                results[n][1],
            )
            for n in CRITERIA
        }
        return Judgement.model_construct(total=total, criteria=criteria)

    def score(self, email: FinalEmail, scenario: Scenario) -> float:
        return self.judge(email, scenario).total
