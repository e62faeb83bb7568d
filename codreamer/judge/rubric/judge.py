"""The rubric judge, v3 (DESIGN §4): deterministic, explainable, fast, for any email.

Every criterion is a score in [0, 1] with a one-line reason:

    argument         the citations, as a set, connect the customer's job to a Product
                     Feature in the graph, and the body tells the steps in order
    grounding        each cited fact is expressed (shared concepts, or by meaning:
                     sentence embeddings, so a paraphrase counts); copying costs
    relevance        the email fits what is known of the prospect, by meaning: their
                     notes, or only title, industry and stack (a criterion, not a gate)
    specificity      it uses the specifics the seller knew (the notes' numbers, names,
                     incidents) rather than only their topic
    product          it says what the product does (some sentence carries a Product
                     Feature node's meaning)
    solution_fit     of the product's features, it pitches the one that fits the prospect
    own_job          it does not tell the reader what their own business does
    fit              pitched at the reader: length, register, framing by seniority
    call_to_action   one ask, for the goal, as a question or a statement
    personalisation  name, company, their situation, a personal subject
    concision        a body a busy reader finishes
    readability      sentence length, prose, paragraphs, greeting, sign-off
    contradiction    numbers, negations and names against the cited facts; invented
                     customers, case studies and results
    deception        fake reply threads, fake urgency, clickbait subjects,
                     guarantees, the wrong name or company
    tone             passive-aggression, shaming, condescension, insults, threats
    grammar          fragments, capitals mid-sentence, dangling connectors, run-ons
    naturalness      reads as a person wrote it: no facts glued on after stock lead-ins,
                     no sentences with nothing behind them, no notes for the graph's
                     author, no stock sales phrases
    sendability      what else stops a person sending it (placeholders, graph talk,
                     repetition, several asks, credential requests, AI disclaimers...)
    english          gate: 0 for an empty or non-English email

The total is not hand-weighted: `total.py` is a logistic model over the criteria,
fitted on readers' grades of the graded corpus (`benchmarks/data/graded/`), with
non-negative weights, times the english gate.

Without a graph (`store=None`) argument, grounding and contradiction are not
scored; without a prospect profile relevance is not scored; without a title fit
is not scored. An unscored criterion takes its neutral (corpus mean) value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from codreamer.agent.reader import Reader, reader

# Every band and cost stays importable from here.
from codreamer.graph.schema import CUSTOMER_JOB, is_product_feature
from codreamer.judge.rubric.bands import *  # noqa: F403
from codreamer.judge.rubric.bands import CHAIN_INCOMPLETE_MAX, PRODUCT_SHOWN
from codreamer.judge.rubric.fit import fit
from codreamer.judge.rubric.flaws import deception, grammar, lower_words, tone
from codreamer.judge.rubric.graph_criteria import (
    allowed_numbers,
    argument,
    claims,
    grounding,
    pasted_share,
    profile_in_graph,
    read_citations,
)
from codreamer.judge.rubric.graph_index import GraphIndex
from codreamer.judge.rubric.language import concepts
from codreamer.judge.rubric.meaning import embed
from codreamer.judge.rubric.natural import graph_spans, naturalness, vocabulary
from codreamer.judge.rubric.own_business import told_own_business
from codreamer.judge.rubric.places import COST as PLACE_COST
from codreamer.judge.rubric.places import other_state_rule
from codreamer.judge.rubric.screens import screen
from codreamer.judge.rubric.semantic import (
    GraphVectors,
    contradiction,
    email_vectors,
    own_job,
    product,
    profile_text,
    relevance,
    solution_fit,
    specificity,
    subject_fit,
    subject_names_body,
)
from codreamer.judge.rubric.semantic import grounding as grounding_by_meaning
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
    subject_concepts,
)
from codreamer.judge.rubric.total import CRITERIA, FEATURES, GATES, FittedTotal, default_total
from codreamer.models import CriterionScore, FinalEmail, Judgement, Scenario, Sender

if TYPE_CHECKING:  # networkx stays out of the import path
    import numpy as np

    from codreamer.graph.store import GraphStore

GRAPH_CRITERIA = ("argument", "grounding", "contradiction", "product", "solution_fit", "own_job")
WEIGHTED = FEATURES  # the criteria the fitted total weighs (GATES multiply it)

__all__ = [
    "CRITERIA",
    "FEATURES",
    "GATES",
    "GRAPH_CRITERIA",
    "WEIGHTED",
    "RubricJudge",
    "combine",
]


def combine(
    scores: dict[str, float],
    unscored: frozenset[str] = frozenset(),
    total: FittedTotal | None = None,
) -> float:
    """The total from criterion scores, shared by the rubric and the llm judge (so an
    LLM cannot pad its own total): the fitted model of `total.py`."""
    return clamp((total or default_total()).total(scores, unscored))


@dataclass(frozen=True, slots=True)
class _ScenarioView:
    """A scenario as the judge uses it, made once per scenario."""

    info: ScenarioInfo
    allowed: str  # what the email may state without a citation: the prospect's own facts
    numbers: frozenset[str]
    possible: dict[str, float] | None
    who: Reader | None
    profile: np.ndarray | None  # the prospect's notes (or role) as a vector
    profile_kind: str
    vocab: frozenset[str]  # the scenario's own words and the graph's, made once


_new = object.__new__
# pydantic's own slots, written through their descriptors (object.__setattr__ would
# look each up by name on every call).
_SLOTS = BaseModel.__dict__
_set_dict = _SLOTS["__dict__"].__set__
_set_fields = _SLOTS["__pydantic_fields_set__"].__set__
_set_extra = _SLOTS["__pydantic_extra__"].__set__
_set_private = _SLOTS["__pydantic_private__"].__set__


def _round4(x: float) -> float:
    """round(x, 4), which goes through a decimal string: 0 and 1, most criteria's
    scores, are their own rounding (and keep their type and sign)."""
    return x if x == 1.0 or x == 0.0 else round(x, 4)


def _feeders(store: GraphStore) -> dict[str, tuple[str, ...]]:
    """Each Product Feature's problem nodes: those with an edge into it, other than
    the Customer Job and other features (what solution_fit matches the notes to)."""
    out: dict[str, list[str]] = {}
    for n in store.nodes:
        if n == CUSTOMER_JOB or is_product_feature(n):
            continue
        for nb in store.out_neighbours(n):
            if is_product_feature(nb.id):
                out.setdefault(nb.id, []).append(n)
    return {f: tuple(ps) for f, ps in out.items()}


def criterion(score: float, weight: float, reason: str) -> CriterionScore:
    """A CriterionScore of trusted values, built without validation: what pydantic's
    `model_construct` does, minus its per-field bookkeeping (a tenth of a judgement's
    time). tests/judge/test_rubric.py checks it equals the validated model."""
    c = _new(CriterionScore)
    _set_dict(c, {"score": score, "weight": weight, "reason": reason})
    _set_fields(c, {"score", "weight", "reason"})
    _set_extra(c, None)
    _set_private(c, None)
    return c


def judgement(total: float, criteria: dict[str, CriterionScore]) -> Judgement:
    """`Judgement.model_construct(total=total, criteria=criteria)` built as `criterion`
    builds a CriterionScore (the test beside criterion's checks it too)."""
    j = _new(Judgement)
    _set_dict(j, {"total": total, "criteria": criteria})
    _set_fields(j, {"total", "criteria"})
    _set_extra(j, None)
    _set_private(j, None)
    return j


class RubricJudge:
    """Scores emails against a graph (optional) and a scenario. Safe to share between
    threads for reads; its caches grow only with the graph and the scenarios seen."""

    name = "rubric"

    def __init__(self, store: GraphStore | None = None, total: FittedTotal | None = None):
        self.store = store
        self.fitted = total or default_total()
        self._index: GraphIndex | None = None
        self._vectors: GraphVectors | None = None
        self._lower: frozenset[str] = frozenset()
        self._graph_vocab: frozenset[str] | None = None
        self._spans: frozenset[tuple[str, ...]] | None = None
        self._scenarios: dict[tuple[Any, ...], _ScenarioView] = {}
        self._graph_lower = ""  # the graph's node text in lower case, made once
        self._concepts: dict[str, frozenset[str]] = {}  # node -> its concepts
        # Each criterion's reported weight, rounded, per set of unscored criteria: a
        # handful of sets ever occur, so the shares are worked out once per set.
        self._weights: dict[frozenset[str], dict[str, float]] = {}

    @property
    def index(self) -> GraphIndex | None:
        if self._index is None and self.store is not None:
            self._index = GraphIndex(self.store)
        return self._index

    @property
    def vectors(self) -> GraphVectors | None:
        if self._vectors is None and self.store is not None:
            store = self.store
            self._vectors = GraphVectors.of({i: store.content(i) for i in store.nodes})
            self._vectors.feeders = _feeders(store)
            self._lower = lower_words(" ".join(store.content(i) for i in store.nodes))
            self._graph_lower = self._vectors.text.lower()
        return self._vectors

    def _vocab_for(self, words: frozenset[str]) -> frozenset[str]:
        """Words of the graph (contents, ids, rationales) and these (the scenario's)."""
        if self._graph_vocab is None:
            store = self.store
            self._graph_vocab = (
                vocabulary(*(f"{i} {store.content(i)}" for i in store.nodes),
                           *(nb.rationale for i in store.nodes for nb in store.out_neighbours(i)))
                if store is not None else frozenset()
            )  # fmt: skip
        return self._graph_vocab | words

    @property
    def spans(self) -> frozenset[tuple[str, ...]]:
        """The graph's runs of words (contents and rationales), to tell pasted text."""
        if self._spans is None:
            store = self.store
            self._spans = (
                graph_spans([store.content(i) for i in store.nodes]
                            + [nb.rationale for i in store.nodes for nb in store.out_neighbours(i)])
                if store is not None else frozenset()
            )  # fmt: skip
        return self._spans

    def _node_concepts(self, node: str) -> frozenset[str]:
        """A node's concepts: its name (the id) and its text, as an email citing it
        may name its topic."""
        hit = self._concepts.get(node)
        if hit is None and self.store is not None:
            hit = self._concepts[node] = concepts(f"{node} {self.store.content(node)}")
        return hit or frozenset()

    def _scenario_info(self, scenario: Scenario) -> _ScenarioView:
        p = scenario.prospect
        key = (p.name, p.company, p.title, p.industry, tuple(p.tech_stack), p.notes, scenario.goal)
        hit = self._scenarios.get(key)
        if hit is None:
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
            text, kind = profile_text(scenario)
            vec = embed([text])[0] if text else None
            hit = _ScenarioView(
                info, allowed, allowed_numbers(allowed), possible, who, vec, kind,
                self._vocab_for(vocabulary(allowed)),
            )  # fmt: skip
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
        return self.fitted.ceiling({"argument": CHAIN_INCOMPLETE_MAX})

    def judge(
        self, email: FinalEmail, scenario: Scenario, sender: Sender | None = None
    ) -> Judgement:
        text = parse_email(email.subject or "", email.body or "")
        view = self._scenario_info(scenario)
        info = view.info
        allowed = view.allowed
        if sender is not None:
            allowed = f"{allowed} {sender.name} {sender.company or ''} {sender.title or ''}"
        index = self.index
        gv = self.vectors
        results: dict[str, tuple[float, str]] = {}
        unscored: set[str] = set()
        claim_list = claims(text, index, allowed, view.numbers)
        product_shown = True
        pasted = 0.0
        ev = email_vectors(text.subject, [s.text for s in text.prose])
        screened = screen(text)  # shared first passes: most emails skip several scans
        allowed_lower = allowed.lower()
        # str.lower maps a space to itself and no case rule reads across one, so
        # lowering the parts equals lowering the whole; the graph's part is lowered once.
        known = f"{allowed_lower} {self._graph_lower if gv is not None else ''}"
        if index is None or gv is None:
            cites = None
            for name in GRAPH_CRITERIA:
                results[name] = (1.0, "no graph: not scored")
                unscored.add(name)
        else:
            cites = read_citations(index, email.citations, text)
            _, missing, _ = grounding_by_meaning(ev, cites.resolved, gv)
            by_meaning = frozenset(n for n in cites.resolved if n not in missing)
            cites.supported |= by_meaning
            pasted = pasted_share(index, text)
            results["argument"] = argument(index, cites, text)
            results["grounding"] = grounding(cites, text, claim_list, pasted, by_meaning)
            results["contradiction"] = contradiction(
                ev, cites.resolved, gv, allowed_lower, screened.prose
            )
            pr = scenario.prospect
            where = f"{pr.notes or ''} {pr.company or ''} {pr.title or ''} {pr.industry or ''}"
            if (elsewhere := other_state_rule(ev.sentences, where)) is not None:
                c_score, c_why = results["contradiction"]
                results["contradiction"] = (
                    c_score * (1.0 - PLACE_COST),
                    f"another state's rules for this reader ({elsewhere[:40]!r})"
                    + ("" if c_score == 1.0 else f"; {c_why}"),
                )
            results["product"] = product(ev, gv)
            results["own_job"] = own_job(ev, gv)
            # Which feature fits is read against notes only: a title and an industry
            # say too little to prefer one feature of the product to another.
            sf = solution_fit(ev, gv, view.profile if view.profile_kind == "notes" else None)
            if sf is None:
                results["solution_fit"] = (1.0, "one feature, or nothing known: not scored")
                unscored.add("solution_fit")
            else:
                results["solution_fit"] = sf
            product_shown = bool(index.product_names & text.counts.keys()) or any(
                index.coverage(f, text.concepts) >= PRODUCT_SHOWN for f in index.features
            )
        # Telling the reader their own business, by its wording: the meaning half
        # above needs the graph's Customer Job node; this needs only the prospect.
        own_told = told_own_business(
            " ".join(s.text for s in text.prose), info.company, info.company_word
        )
        if own_told:
            by_words = 0.5 if len(own_told) == 1 else 0.25
            if by_words < results["own_job"][0] or "own_job" in unscored:
                results["own_job"] = (
                    by_words,
                    f"tells the reader their own business ('{own_told[0][:60]}')",
                )
                unscored.discard("own_job")
        if view.profile is not None:
            results["relevance"] = relevance(ev, view.profile, view.profile_kind, gv)
        else:
            results["relevance"] = (1.0, "nothing known of the prospect: not scored")
            unscored.add("relevance")
        notes = (scenario.prospect.notes or "").strip()
        if notes:
            results["specificity"] = specificity(" ".join(s.text for s in text.prose), notes)
        else:
            results["specificity"] = (1.0, "no notes on the prospect: not scored")
            unscored.add("specificity")
        fitted = fit(text, view.who)
        if fitted is None:
            results["fit"] = (1.0, "nothing known of the reader's role: not scored")
            unscored.add("fit")
        else:
            results["fit"] = fitted
        found_asks = asks(text, info)
        results["call_to_action"] = call_to_action(text, info, found_asks)
        results["personalisation"] = personalisation(text, info)
        results["concision"] = concision(text)
        results["readability"] = readability(text)
        results["english"] = english(text)
        told = set().union(*(s.concepts for s in text.prose))
        if cites is not None:
            told.update(*(self._node_concepts(n) for n in cites.resolved))
        on_topic = subject_names_body(subject_concepts(text, info), told)
        results["deception"] = deception(
            text, info, 1.0 if on_topic else subject_fit(ev, gv, view.profile), known,
            screened.subject_and_body,
        )  # fmt: skip
        results["tone"] = tone(text)
        results["grammar"] = grammar(text, self._lower)
        results["naturalness"] = naturalness(
            text, view.vocab, scenario.prospect.notes or "", self.spans,
            scenario.prospect.company or "", screened,
        )  # fmt: skip
        mult, why, _ = sendability(
            text, info, index, claim_list, product_shown, pasted, found_asks, sender
        )
        results["sendability"] = (mult, why)

        frozen = frozenset(unscored)
        scores = {n: v for n, (v, _) in results.items()}
        # Six significant digits, not decimals: a very bad email keeps a tiny non-zero
        # total, so the ranking among flawed emails survives (DESIGN §4).
        total = float(f"{clamp(self.fitted.total(scores, frozen)):.6g}")
        weights = self._weights.get(frozen)
        if weights is None:
            shares = self.fitted.shares(frozen)
            weights = self._weights[frozen] = {n: round(shares.get(n, 0.0), 4) for n in CRITERIA}
        criteria = {
            n: criterion(_round4(clamp(results[n][0])), weights[n], results[n][1]) for n in CRITERIA
        }
        return judgement(total, criteria)

    def explain(
        self, email: FinalEmail, scenario: Scenario, sender: Sender | None = None
    ) -> dict[str, float]:
        """Each criterion's contribution to the total's logit, against a neutral email."""
        j = self.judge(email, scenario, sender)
        unscored = frozenset(n for n, c in j.criteria.items() if c.reason.endswith("not scored"))
        return self.fitted.contributions({n: c.score for n, c in j.criteria.items()}, unscored)

    def score(self, email: FinalEmail, scenario: Scenario) -> float:
        return self.judge(email, scenario).total
