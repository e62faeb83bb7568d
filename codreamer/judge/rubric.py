"""The rubric judge (DESIGN §4): deterministic, explainable, fast, for any email.

Every criterion scores in [0, 1] with a one-line reason. Weights, gates and
bands live in `codreamer.judge.bands` and nowhere else (this module re-exports
them). The graph criteria are here, on `RubricJudge`; the graph-free ones are
pure functions of the text in `codreamer.judge.text_criteria`.

How the total is made
---------------------
    total = (sum of weight * score over the weighted criteria) * (product of the gates)

Weighted criteria (weights sum to 1, `RubricWeights`):

    grounding        0.15  citations exist in the graph and each cited node's content
                           shows in the body (token overlap)
    argument_chain   0.25  the citations, in order, walk Customer Job -> ... -> a Product
                           Feature node (a connected prefix earns partial credit scaled by
                           how far it got), and the body links the steps with connectives
                           ("leads to", "in turn", "this is where"...) rather than listing
    call_to_action   0.20  the goal, asked as a question (stated: partial)
    personalisation  0.20  prospect's first name, company; title/industry and a subject
                           that names them are small extras
    concision        0.05  body word band, subject word band
    readability      0.15  sentence length, prose rather than list lines, paragraphs,
                           a greeting and a sign-off

Gates (must-pass checks; they do not earn credit, they take it away, so a spam-free
email is not "good" for being spam-free, and an unsendable one scores low however
well it argues). They are reported with weight 0:

    english          share of common English function words (a French email -> 0)
    no_placeholders  `[Your Name]`, `{{x}}`, `<NAME>`, TODO, lorem ipsum -> 0
    no_spam          spam phrases, ALL-CAPS words, "!!" -> minus 0.25 each

Without a graph (`store=None`) grounding and argument_chain cannot be checked:
they are reported with weight 0 and reason "no graph", and the remaining weights
are renormalised.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from codreamer.graph.schema import is_product_feature

# Every weight, gate and band stays importable from here, where it always was.
from codreamer.judge.bands import *  # noqa: F403
from codreamer.judge.bands import (
    CHAIN_DEAD_END_HOPS,
    CHAIN_EXTRA_CITATION_PENALTY,
    CHAIN_EXTRA_FLOOR,
    CHAIN_INCOMPLETE_MAX,
    CHAIN_LINK_FLOOR,
    CRITERIA,
    GATES,
    GRAPH_CRITERIA,
    GROUNDING_FULL_OVERLAP,
    WEIGHTED,
    RubricWeights,
)
from codreamer.judge.text_criteria import (
    TOKEN,
    Phrase,
    ScenarioInfo,
    call_to_action,
    clamp,
    concision,
    connectives,
    content_tokens,
    english,
    no_placeholders,
    no_spam,
    personalisation,
    readability,
    scenario_info,
)
from codreamer.models import CUSTOMER_JOB, CriterionScore, FinalEmail, Judgement, Scenario

if TYPE_CHECKING:  # networkx stays out of the import path
    from codreamer.graph.store import GraphStore


class RubricJudge:
    """Scores emails against a graph (optional) and a scenario. Thread-safe for reads;
    the caches only grow with the graph's nodes and the scenarios seen."""

    name = "rubric"

    def __init__(self, store: GraphStore | None = None, weights: RubricWeights | None = None):
        self.store = store
        self.weights = weights or RubricWeights()
        self._w = self.weights.as_dict()
        self._node_tokens: dict[str, frozenset[str]] = {}
        self._node_conn: dict[str, Counter[Phrase]] = {}
        self._scenarios: dict[tuple[Any, ...], ScenarioInfo] = {}

    # -- caches ---------------------------------------------------------------
    def _tokens_of(self, node_id: str) -> frozenset[str]:
        toks = self._node_tokens.get(node_id)
        if toks is None:
            assert self.store is not None
            toks = content_tokens(self.store.content(node_id))
            self._node_tokens[node_id] = toks
        return toks

    def _conn_of(self, node_id: str) -> Counter[Phrase]:
        c = self._node_conn.get(node_id)
        if c is None:
            assert self.store is not None
            c = connectives(TOKEN.findall(self.store.content(node_id).lower()))
            self._node_conn[node_id] = c
        return c

    def _scenario_info(self, scenario: Scenario) -> ScenarioInfo:
        p = scenario.prospect
        key = (p.name, p.company, p.title, p.industry, scenario.goal)
        info = self._scenarios.get(key)
        if info is None:
            info = scenario_info(scenario)
            if len(self._scenarios) > 1024:
                self._scenarios.clear()
            self._scenarios[key] = info
        return info

    # -- the judgement -------------------------------------------------------
    def ceiling(self, citations: list[str]) -> float:
        """An upper bound on the total of *any* email with these citations.

        A chain that does not reach a Product Feature scores at most
        CHAIN_INCOMPLETE_MAX on argument_chain, and every other criterion at
        most 1, so the total cannot pass this. The oracle uses it to skip
        judging walks that cannot beat the best found; keep it a true bound.
        """
        if self.store is None or not citations:
            return 1.0
        if any(is_product_feature(c) for c in citations):
            return 1.0
        wsum = sum(self._w.values()) or 1.0
        return 1.0 - self._w["argument_chain"] * (1.0 - CHAIN_INCOMPLETE_MAX) / wsum

    def judge(self, email: FinalEmail, scenario: Scenario) -> Judgement:
        subject = email.subject or ""
        body = email.body or ""
        body_lower = body.lower()
        body_tokens = TOKEN.findall(body_lower)
        body_counts = Counter(body_tokens)
        body_token_set = body_counts.keys()
        info = self._scenario_info(scenario)

        results: dict[str, tuple[float, str]] = {}
        if self.store is None:
            results["grounding"] = (0.0, "no graph: not scored")
            results["argument_chain"] = (0.0, "no graph: not scored")
        else:
            results["grounding"] = self._grounding(email.citations, body_token_set)
            results["argument_chain"] = self._argument_chain(
                email.citations, body_tokens, body_counts, scenario
            )
        results["call_to_action"] = call_to_action(body, info)
        results["personalisation"] = personalisation(subject, body, body_lower, info)
        results["concision"] = concision(subject, len(body_tokens))
        results["readability"] = readability(body)
        results["english"] = english(body_counts, len(body_tokens))
        results["no_placeholders"] = no_placeholders(subject, body)
        results["no_spam"] = no_spam(subject, body, body_tokens, body_counts)

        weights = dict(self._w)
        if self.store is None:
            for name in GRAPH_CRITERIA:
                weights[name] = 0.0
        wsum = sum(weights.values()) or 1.0
        quality = sum(weights[n] * results[n][0] for n in WEIGHTED) / wsum
        gate = 1.0
        for n in GATES:
            gate *= results[n][0]
        total = round(clamp(quality * gate), 4)

        criteria = {
            n: CriterionScore.model_construct(
                score=round(clamp(results[n][0]), 4),
                weight=round(weights.get(n, 0.0) / wsum, 4) if n in weights else 0.0,
                reason=results[n][1],
            )
            for n in CRITERIA
        }
        return Judgement.model_construct(total=total, criteria=criteria)

    def score(self, email: FinalEmail, scenario: Scenario) -> float:
        return self.judge(email, scenario).total

    # -- graph criteria ------------------------------------------------------
    def _grounding(self, citations: list[str], body_tokens: Any) -> tuple[float, str]:
        assert self.store is not None
        cited = list(dict.fromkeys(citations))
        if not cited:
            return 0.0, "no citations"
        if not body_tokens:
            return 0.0, "empty body: no cited content shown"
        unknown = [c for c in cited if c not in self.store]
        total = 0.0
        shown = 0
        for c in cited:
            if c in unknown:
                continue
            toks = self._tokens_of(c)
            if not toks:
                credit = 0.5  # nothing to check against
            else:
                overlap = len(toks & body_tokens) / len(toks)
                credit = min(1.0, overlap / GROUNDING_FULL_OVERLAP)
            shown += credit >= 1.0
            total += credit
        score = total / len(cited)
        known = len(cited) - len(unknown)
        reason = f"{known}/{len(cited)} citations in the graph, content shown for {shown}"
        if unknown:
            reason += "; unknown: " + ", ".join(repr(u) for u in unknown[:3])
            if len(unknown) > 3:
                reason += f" (+{len(unknown) - 3} more)"
        return score, reason

    def _argument_chain(
        self,
        citations: list[str],
        body_tokens: list[str],
        body_counts: Counter[str],
        scenario: Scenario,
    ) -> tuple[float, str]:
        store = self.store
        assert store is not None
        if not citations:
            return 0.0, "no citations"
        starts = {CUSTOMER_JOB, *scenario.seed_nodes}
        if citations[0] not in starts or citations[0] not in store:
            return 0.0, f"does not start at {CUSTOMER_JOB!r} (starts at {citations[0]!r})"
        chain = [citations[0]]
        complete = is_product_feature(chain[0])
        for nxt in citations[1:]:
            if complete or not store.has_edge(chain[-1], nxt):
                break
            chain.append(nxt)
            if is_product_feature(nxt):
                complete = True
        hops = len(chain) - 1
        extra = len(citations) - len(chain)
        if complete:
            structure = 1.0
            what = f"connected path of {hops} hops to {chain[-1]!r}"
        else:
            to_go = store.hops_to_feature(chain[-1])
            dead = to_go is None
            to_go = CHAIN_DEAD_END_HOPS if to_go is None else to_go
            structure = CHAIN_INCOMPLETE_MAX * (hops / (hops + to_go)) if hops else 0.0
            what = f"stops after {hops} hops at {chain[-1]!r}" + (
                " (a dead end)" if dead else f", {to_go} short of a Product Feature"
            )
        if extra:
            structure *= max(CHAIN_EXTRA_FLOOR, 1.0 - CHAIN_EXTRA_CITATION_PENALTY * extra)
            what += f"; {extra} citation(s) off the chain"
        if hops == 0:
            return structure, what
        body_conn = connectives(body_tokens, body_counts)
        content_conn: Counter[Phrase] = Counter()
        for nid in dict.fromkeys(chain):
            content_conn.update(self._conn_of(nid))
        added = sum(max(0, n - content_conn.get(k, 0)) for k, n in body_conn.items())
        link = min(1.0, added / hops)
        score = structure * (CHAIN_LINK_FLOOR + (1.0 - CHAIN_LINK_FLOOR) * link)
        if link < 1.0:
            what += f"; steps linked {min(added, hops)}/{hops}"
        return score, what
