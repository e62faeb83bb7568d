"""The rubric's graph criteria (DESIGN §4): argument, grounding, relevance.

- grounding: each cited node's facts, by meaning (concept coverage), in the body;
  copying long runs of node text earns nothing more and past a share costs;
  numbers, named customers and results no cited node supports cost.
- argument: the citations as a set (order irrelevant; `Customer Job` implicit),
  keeping only those the body supports, connect `Customer Job` to a Product
  Feature in the graph, and the body tells the steps in that order.
- relevance: how well the supported facts, and the body, fit what is known of the
  prospect (title, industry, tech stack, notes).
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from itertools import compress, count

from codreamer.judge.rubric.bands import (
    CHAIN_BRIDGE_COST,
    CHAIN_BRIDGE_FLOOR,
    CHAIN_DEAD_END_HOPS,
    CHAIN_FEATURE_ONLY,
    CHAIN_INCOMPLETE_MAX,
    CLAIM_COST,
    GROUND_FULL,
    GROUND_SUPPORT,
    GROUND_UNKNOWN_WEIGHT,
    ORDER_FLOOR,
    PASTE_COST,
    PASTE_FREE,
    POSITION_SHARE,
    REL_COVER_FULL,
    REL_FACTS_SHARE,
    REL_FULL,
    UNSUPPORTED_CITATION_COST,
    UNSUPPORTED_CITATION_MAX,
)
from codreamer.judge.rubric.graph_index import PASTE_N, GraphIndex
from codreamer.judge.rubric.text_criteria import EmailText, ScenarioInfo, clamp, profile_in
from codreamer.judge.rubric.words import CLAIM_TRIGGERS, TIME_UNITS
from codreamer.models import CUSTOMER_JOB


@dataclass(slots=True)
class Citations:
    """The email's citations as the graph sees them."""

    resolved: list[str]  # graph node ids, unique, in first-cited order
    unknown: list[str]  # citations that name no node
    coverage: dict[str, float]  # node -> share of its concepts the body expresses
    supported: set[str]  # nodes the body expresses (Customer Job always)


def read_citations(index: GraphIndex, citations: list[str], email: EmailText) -> Citations:
    resolved: list[str] = []
    unknown: list[str] = []
    for c in dict.fromkeys(citations):
        node = index.resolve(c)
        if node is None:
            unknown.append(c)
        elif node not in resolved:
            resolved.append(node)
    coverage = {n: index.coverage(n, email.concepts) for n in resolved}
    supported = {n for n, v in coverage.items() if v >= GROUND_SUPPORT}
    if CUSTOMER_JOB in index.store:
        supported.add(CUSTOMER_JOB)  # implicit: every argument starts at the customer's job
    return Citations(resolved, unknown, coverage, supported)


# -- grounding --------------------------------------------------------------------

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
# The same on an ASCII text, where `\d` is [0-9]: `re` skips to digits with a bitmap
# instead of asking Unicode of every character.
_NUMBER_ASCII = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")
_AFTER_NUMBER = re.compile(
    r"\s*(%|percent\b|x\b|k\b|m\b|bn\b|million\b|billion\b|thousand\b|hundred\b)?"
    r"(?:[\s-]+([a-z]+))?",
    re.IGNORECASE,
)
_CURRENCY = frozenset("$€£")
_CUSTOMER_LIST = re.compile(
    r"\b(?:customers?|clients?|companies|teams|brands|distributors|fleets|partners|leaders|"
    r"firms|organi[sz]ations|labs?)\s+(?:like|such as|including|incl\.)\s+"
    r"((?:[A-Z][\w&'.-]*\s?){1,3}(?:,\s*(?:and\s+)?(?:[A-Z][\w&'.-]*\s?){1,3})*)"
)
_NAMES_DID = re.compile(
    # (?:N){1,3} written N(?:N){0,2} (the same matches): starting with [A-Z], `re`
    # skips to capitals instead of trying the group at every character.
    r"([A-Z][\w&'.-]+\s?(?:[A-Z][\w&'.-]+\s?){0,2}(?:,\s*(?:and\s+)?(?:[A-Z][\w&'.-]+\s?){1,3})*)\s+"
    r"(?:all\s+)?(?:use|uses|used|relies on|rely on|trusts?|chose|switched|saw|cut|reduced|"
    r"saved|increased|doubled|tripled|halved|achieved|grew)\b"
)
_LIST_WORDS = frozenset(("like", "such", "including", "incl"))


def allowed_numbers(text: str) -> frozenset[str]:
    return frozenset(a.replace(",", "").rstrip(".") for a in re.findall(r"\d[\d,.]*", text))


def claims(
    email: EmailText, index: GraphIndex | None, allowed_text: str, allowed: frozenset[str]
) -> list[str]:
    """Numbers, named customers and results that nothing given supports (`allowed`:
    the numbers of `allowed_text`, the prospect's own facts)."""
    body = email.body
    out: list[str] = []
    graph_numbers = index.numbers if index is not None else frozenset()
    for m in (_NUMBER_ASCII if body.isascii() else _NUMBER).finditer(body):
        start, end = m.span()
        if start and (body[start - 1].isalnum() or body[start - 1] in "._"):
            continue  # part of a word or a dotted run ("F1", "192.168")
        num = m.group(0).replace(",", "").rstrip(".")
        if num in allowed or num in graph_numbers:
            continue
        money = start > 0 and body[start - 1] in _CURRENCY
        after = _AFTER_NUMBER.match(body, end)
        unit, word = (after.group(1), after.group(2)) if after else (None, None)
        if not money and not unit:
            value = float(num) if num.replace(".", "", 1).isdigit() else 0.0
            if word and word.lower() in TIME_UNITS and value <= 60:
                continue  # "a 30-minute call", "five trucks", "two weeks"
            if 1990 <= value <= 2100 or value <= 12:
                continue  # a year, a small count ("3 steps")
        stop = after.end(1) if after is not None and unit else end  # the number and its unit
        text = body[start - 1 if money else start : stop].strip()
        out.append(text)
    triggers = CLAIM_TRIGGERS & email.token_set
    if not triggers:
        return out
    known = index.vocab if index is not None else frozenset()
    allowed_lower = allowed_text.lower()
    found: list[str] = []
    for s in email.prose:
        if not triggers.intersection(s.tokens):
            continue
        if _LIST_WORDS.intersection(s.tokens):
            found.extend(m.group(1) for m in _CUSTOMER_LIST.finditer(s.text))
        found.extend(m.group(1) for m in _NAMES_DID.finditer(s.text))
    for names in found:
        for name in re.split(r",\s*(?:and\s+)?|\s+and\s+", names):
            words = name.strip().split()
            if not words:
                continue
            if all(w.lower().strip(".,'") in known or w.lower() in allowed_lower for w in words):
                continue
            if words[0].lower() in ("we", "our", "i", "you", "your", "they", "it", "this"):
                continue
            out.append(name.strip())
    return out


def grounding(
    cites: Citations,
    email: EmailText,
    claim_list: list[str],
    pasted: float,
    by_meaning: frozenset[str] = frozenset(),
) -> tuple[float, str]:
    """`by_meaning`: cited nodes the body expresses by meaning (a paraphrase with no
    shared word), which count as fully expressed."""
    if not cites.resolved and not cites.unknown:
        return 0.0, "no citations"
    if not email.tokens:
        return 0.0, "empty body: nothing shown"
    # Customer Job is implicit: citing it without restating it is not a gap.
    counted = [
        n
        for n in cites.resolved
        if n != CUSTOMER_JOB or cites.coverage[n] >= GROUND_SUPPORT or len(cites.resolved) == 1
    ]
    credit = sum(
        1.0 if n in by_meaning else min(1.0, cites.coverage[n] / GROUND_FULL) for n in counted
    )
    denom = len(counted) + GROUND_UNKNOWN_WEIGHT * len(cites.unknown)
    score = credit / denom if denom else 0.0
    shown = sum(1 for n in counted if n in by_meaning or cites.coverage[n] >= GROUND_SUPPORT)
    reason = f"{shown}/{len(counted)} cited facts expressed"
    if cites.unknown:
        reason += "; not in the graph: " + ", ".join(repr(u) for u in cites.unknown[:3])
        if len(cites.unknown) > 3:
            reason += f" (+{len(cites.unknown) - 3} more)"
    if pasted > PASTE_FREE:
        score *= 1.0 - PASTE_COST * (pasted - PASTE_FREE) / (1.0 - PASTE_FREE)
        reason += f"; {pasted:.0%} of the body copied from the graph"
    if claim_list:
        score -= CLAIM_COST * len(claim_list)
        reason += "; unsupported: " + ", ".join(repr(c) for c in claim_list[:3])
    return clamp(score), reason


def pasted_share(index: GraphIndex, email: EmailText) -> float:
    toks = email.tokens
    n = len(toks)
    if n < PASTE_N:
        return 0.0
    grams = index.ngrams
    # The positions whose n-gram the graph holds, tested without a Python loop.
    found = map(grams.__contains__, zip(*(toks[k:] for k in range(PASTE_N)), strict=False))
    hits = list(compress(count(), found))
    if not hits:
        return 0.0
    copied = 0
    end = -1
    for i in hits:  # tokens covered by the copied runs
        copied += PASTE_N if i >= end else i + PASTE_N - end
        end = i + PASTE_N
    return copied / n


# -- argument ---------------------------------------------------------------------


def _best_path(index: GraphIndex, nodes: set[str]) -> tuple[list[str], int] | None:
    """The path from Customer Job to a Product Feature through `nodes` that skips the
    fewest unsupported nodes (then the shortest); None if there is none."""
    store = index.store
    if CUSTOMER_JOB not in store:
        return None
    heap: list[tuple[int, int, str, tuple[str, ...]]] = [(0, 0, CUSTOMER_JOB, (CUSTOMER_JOB,))]
    best: dict[str, int] = {}
    while heap:
        bridges, hops, node, path = heapq.heappop(heap)
        if node in best and best[node] <= bridges:
            continue
        best[node] = bridges
        if node in index.feature_set and node != CUSTOMER_JOB:
            return list(path), bridges
        for nxt, skipped in index.near(node):
            if nxt in nodes and nxt not in path:
                heapq.heappush(heap, (bridges + skipped, hops + 1, nxt, (*path, nxt)))
    return None


def _progress(index: GraphIndex, nodes: set[str]) -> tuple[float, str]:
    """How far toward a Product Feature the supported nodes get, for a broken chain."""
    store = index.store
    seen = {CUSTOMER_JOB: 0}
    frontier = [CUSTOMER_JOB]
    while frontier:
        nxt = []
        for node in frontier:
            for nb in store.out_neighbours(node):
                if nb.id in nodes and nb.id not in seen:
                    seen[nb.id] = seen[node] + 1
                    nxt.append(nb.id)
        frontier = nxt
    best, where = 0.0, CUSTOMER_JOB
    for node, hops in seen.items():
        if not hops:
            continue
        to_go = store.hops_to_feature(node)
        to_go = CHAIN_DEAD_END_HOPS if to_go is None else to_go
        p = hops / (hops + to_go)
        if p > best:
            best, where = p, node
    return best, where


def _position(index: GraphIndex, node: str, email: EmailText) -> int | None:
    """Where the body first tells `node`: the first prose sentence expressing at least
    POSITION_SHARE of what the sentence that expresses it most does."""
    weight = index.weight
    mine = index.content.get(node, frozenset())
    # Sorted: a sum in the set's hash order could tip the share below (see GraphIndex).
    ws = [sum(map(weight.__getitem__, sorted(mine & s.concepts))) for s in email.prose]
    best = max(ws, default=0.0)
    if best <= 0.0:
        return None
    return next(i for i, w in enumerate(ws) if w >= POSITION_SHARE * best)


def argument(index: GraphIndex, cites: Citations, email: EmailText) -> tuple[float, str]:
    if not cites.resolved:
        return 0.0, "no citation names a node of the graph"
    unsupported = [n for n in cites.resolved if n not in cites.supported]
    found = _best_path(index, cites.supported)
    if found is not None:
        path, bridges = found
        score = max(CHAIN_BRIDGE_FLOOR, 1.0 - CHAIN_BRIDGE_COST * bridges)
        what = f"{len(path) - 1}-step chain from the customer's job to {path[-1]!r}"
        if bridges:
            what += f" ({bridges} step(s) skipped)"
        # The body should tell the steps in the chain's order (the job may stay implicit).
        # A faint trace of the job's words somewhere is not telling it: only a job the
        # body supports takes a place in the order.
        steps = [
            n for n in path if n != CUSTOMER_JOB or cites.coverage.get(n, 0.0) >= GROUND_SUPPORT
        ]
        pos = [p for n in steps if (p := _position(index, n, email)) is not None]
        if len(pos) >= 2:
            ordered = sum(1 for a, b in zip(pos, pos[1:], strict=False) if a <= b)
            share = ordered / (len(pos) - 1)
            score *= ORDER_FLOOR + (1.0 - ORDER_FLOOR) * share
            if share < 1.0:
                what += f"; told out of order ({ordered}/{len(pos) - 1} steps in order)"
    else:
        progress, where = _progress(index, cites.supported)
        score = CHAIN_INCOMPLETE_MAX * progress
        what = f"no supported chain reaches a Product Feature (got to {where!r})"
        if index.feature_set & cites.supported:
            score = max(score, CHAIN_FEATURE_ONLY)
            what = "the product is shown but nothing cited links it to the customer's job"
    if unsupported:
        score -= min(UNSUPPORTED_CITATION_MAX, UNSUPPORTED_CITATION_COST * len(unsupported))
        what += f"; {len(unsupported)} citation(s) support nothing in the body"
    return clamp(score), what


# -- relevance --------------------------------------------------------------------


def profile_in_graph(index: GraphIndex, info: ScenarioInfo) -> dict[str, float]:
    """The prospect's profile concepts the graph can speak to, each weighted by its
    source and by how telling it is in the graph (computed once per scenario)."""
    cw = index.context_weight
    return {c: w * cw[c] for c, w in info.profile.items() if c in cw}


def relevance(
    index: GraphIndex | None,
    cites: Citations | None,
    email: EmailText,
    info: ScenarioInfo,
    possible: dict[str, float] | None = None,
) -> tuple[float, str]:
    """The share of what the graph could say to this prospect that the chosen facts
    say (profile concepts weighted by source and by how telling they are in the
    graph), plus how much the body speaks to the profile."""
    body_fit = min(1.0, profile_in(email.concepts, info) / REL_FULL)
    if index is None or cites is None:
        return body_fit, f"the body speaks to the prospect's profile {body_fit:.0%}"
    facts: set[str] = set()
    for n in cites.supported:
        if n != CUSTOMER_JOB:
            facts |= index.context[n]
    if possible is None:
        possible = profile_in_graph(index, info)
    reachable = sum(possible.values())
    if not reachable:
        return body_fit, f"the graph says nothing about this prospect; body {body_fit:.0%}"
    matched = sorted((c for c in possible if c in facts), key=lambda c: (-possible[c], c))
    fact_fit = min(1.0, sum(possible[c] for c in matched) / (REL_COVER_FULL * reachable))
    score = REL_FACTS_SHARE * fact_fit + (1.0 - REL_FACTS_SHARE) * body_fit
    shown = ", ".join(matched[:3]) or "nothing"
    return score, f"facts fit the prospect {fact_fit:.0%} ({shown}); body {body_fit:.0%}"
