"""The plan: what each fact of a walk does in the argument, before any wording.

A walk is the policy's choice of facts: a chain from the seed (usually the
Customer Job) to a Product Feature. The plan gives each fact a role,

    situation  the reader's own business (the Customer Job, told to them as "you")
    problem    what goes wrong
    cost       what it costs (a number, money, time or a loss in the fact)
    cause      what lies behind the previous fact (the edge says "caused by", ...)
    effect     what the previous fact leads to
    change     what changes with the product (its fact, and the edge's reason)
    proof      what the product's customers got, in figures, when its node says so;
               else the reason the product helps, when the graph states one

keeps the chain's order (the argument reads from the reader's world to the
product), and merges or subordinates: a noun-phrase fact is attached to the step
before it, a brief email joins consecutive facts into one sentence, and the
situation is told only when the walk has no problem to open on. Edge rationales
become reasons only where they explain the customer's world, never the graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from codreamer.agent.style import EmailStyle
from codreamer.agent.writer.grammar import base_form
from codreamer.agent.writer.text import (
    Fact,
    customer_fact,
    is_lecture,
    product_outcome,
    reason_clause,
)
from codreamer.agent.writer.voice import (
    GENERIC_CLASS,
    agree,
    customer_class,
    plain,
    seller_voice,
    to_reader,
)
from codreamer.graph.memo import per_graph
from codreamer.graph.schema import is_product_feature
from codreamer.models import CUSTOMER_JOB

if TYPE_CHECKING:
    from collections.abc import Callable

    from codreamer.graph.store import GraphStore

_CAUSE = re.compile(
    r"caused by|stems? from|because of|due to|driven by|results? from|comes? from|"
    r"unnoticed because|worsened by|made worse by|relies on|depends on|rooted in",
    re.IGNORECASE,
)
_EFFECT = re.compile(
    r"^(?:causes|leads? to|triggers|results? in|drives|creates|produces|increases|costs|"
    r"raises|shows up as|turns into|becomes)\b",
    re.IGNORECASE,
)
_COST = re.compile(
    r"\$|€|£|\d|percent|\bcosts?\b|\blos(?:s|ses|e|t)\b|write-?offs?|premium|revenue|margin|"
    r"\bfines?\b|penalt|churn|overtime|thousand|million",
    re.IGNORECASE,
)
# Words per fact, by length choice (brief, standard, detailed).
FACT_WORDS = (14, 20, 26)


@dataclass(slots=True)
class Step:
    node: str
    role: str
    fact: Fact
    reason: str = ""  # why this step follows from the one before (an edge rationale)
    joined: bool = False  # told in the same sentence as the step before


@dataclass(slots=True)
class Plan:
    steps: list[Step] = field(default_factory=list)  # the argument, in the chain's order
    change: Step | None = None  # the product, with its reason as proof
    topic_node: str = CUSTOMER_JOB  # the reader's problem, for the subject


def _role(label: str, content: str) -> str:
    if _CAUSE.search(label):
        return "cause"
    if _EFFECT.search(label):
        return "cost" if _COST.search(content) else "effect"
    return "cost" if _COST.search(content) else "problem"


_OVERCLAIM = re.compile(
    r"\b(?:the only|only reliable|always|never|guarantee[sd]?|eliminat\w*|every single)\b", re.I
)
_WE = re.compile(r"\b(?:we|our|ours|us|ourselves)\b", re.IGNORECASE)
_STEM_WORD = re.compile(r"[a-z][a-z'-]{3,}")
# Facts per email, by length choice (brief, standard, detailed): a cold email makes
# one point well; a stack of figures reads as a stat dump.
MAX_FACTS = (1, 2, 2)


def stems(text: str) -> frozenset[str]:
    return frozenset(w[:5] for w in _STEM_WORD.findall(text.lower()))


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _reader_fact(store: GraphStore, node: str, limit: int) -> Fact:
    pf = is_product_feature(node)
    fact = customer_fact(store.content(node), limit, pf)
    if not fact.ok:
        return fact
    text = agree(plain(fact.text))
    if not pf and _WE.search(text):
        # "our data" in a fact about the reader claims the customer's things for the
        # seller (or speaks in the customer's voice): never told
        return Fact("", "noun")
    if fact.kind == "predicate" and not pf:
        # "Validates data quality by ..." is the reader's own work, told back to them
        # as news: never said (the Customer Job is the seller's view of the reader)
        return Fact("", "noun")
    if pf and fact.kind == "clause":
        voiced = seller_voice(text)
        if voiced:
            return Fact(voiced[0].upper() + voiced[1:], "clause")
    classes = customer_class(store.content(CUSTOMER_JOB)) if CUSTOMER_JOB in store else ()
    if not pf and (m := _BARE_QUANTIFIER.match(text)) is not None:
        # "Most still update rates by hand": most what? The sentence before it said,
        # but that one was a note for the graph's author. Actors are the graph's
        # customers, told as the market ("Most hotels still ...", not "you"); an event
        # ("Most still happen ...") or a graph that names no customers leaves it untold.
        own = [c for c in classes if c not in GENERIC_CLASS]
        if base_form(m.group(2)) in _EVENT_VERBS or not own:
            return Fact("", "noun")
        return Fact(f"{m.group(1)} {own[0]} {text[m.end(1) + 1 :]}", fact.kind)
    return Fact(to_reader(text, classes), fact.kind)


def tellable(store: GraphStore, node: str) -> bool:
    """Whether a walk through `node` can put it in the email: a Product Feature, a
    fact the writer tells (a clause for the customer; not the Customer Job, a bare
    noun phrase, the reader's own work, a note for the graph's author or a lecture),
    or, failing that, a reason for the customer on an edge into it (what `_insight`
    tells when a walk holds no fact; the graph's boilerplate reasons are not told
    apart here). A walk's choice of node is worth its relevance only when the node
    can be told."""
    return _tellable_nodes(store)[node]


@per_graph
def _tellable_nodes(store: GraphStore) -> dict[str, bool]:
    return {n: _tellable(store, n) for n in store.nodes}


def _tellable(store: GraphStore, node: str) -> bool:
    if is_product_feature(node):
        return True
    if node == CUSTOMER_JOB:
        return False
    fact = _reader_fact(store, node, FACT_WORDS[-1])
    if fact.ok and fact.kind != "noun" and not is_lecture(fact.text):
        return True
    return any(
        (edge := store.edge(prev, node)) is not None
        and (r := told_reason(edge.rationale))
        and not is_lecture(r)
        for prev in store.predecessors(node)
    )


def names_company(text: str, company: str) -> bool:
    """Whether `text` names the reader's `company` (its full name, or its first word
    when that is a name of five letters or more: "Pearls", "Northfield"), as a whole
    word, in any case. Found by position, not a pattern per company: a CRM list has
    a company per lead."""
    if not company:
        return False
    low = text.lower()
    for name in _company_names(company):
        i = low.find(name)
        while i != -1:
            end = i + len(name)
            if (i == 0 or not _word_char(low[i - 1])) and (
                end == len(low) or not _word_char(low[end])
            ):
                return True
            i = low.find(name, i + 1)
    return False


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


@lru_cache(maxsize=4096)
def _company_names(company: str) -> tuple[str, ...]:
    words = company.split()
    names = [company.lower()]
    if len(words) > 1 and len(words[0]) >= 5 and words[0][:1].isupper():
        names.append(words[0].lower())
    return tuple(names)


def told_reason(rationale: str, max_words: int = 22) -> str:
    """An edge's rationale as a reason told to the customer, in plain words; "" when
    it is none (no clause for the customer, an overclaim, the seller's "we")."""
    r = reason_clause(rationale, max_words) if rationale else ""
    return agree(plain(r)) if r and not _OVERCLAIM.search(r) and not _WE.search(r) else ""


def _insight(
    facts: list[str], reason: Callable[[str, str], str], want: frozenset[str], most: int
) -> list[Step]:
    """When the walk holds no fact to tell (each is the reader's own work, a bare noun
    phrase or a definition), why one step of it leads to the next, if an edge says so
    for the customer ("automated metrics are often insufficient for nuanced LLM
    tasks"): the argument then has a middle, not only the reader's notes and the
    product. The `most` reasons that bear most on the notes (else the first ones), in
    the walk's order."""
    found: list[tuple[float, int, Step]] = []
    for i in range(1, len(facts)):
        r = reason(facts[i - 1], facts[i])
        if r and not is_lecture(r):
            r = r[:1].upper() + r[1:]
            step = Step(facts[i], "cause", Fact(r, "clause"))
            found.append((2.0 * len(stems(r) & want) - 0.1 * i, i, step))
    best = sorted(found, key=lambda c: -c[0])[:most]
    return [c[2] for c in sorted(best, key=lambda c: c[1])]


_BARE_QUANTIFIER = re.compile(
    # a quantifier with no noun, then an adverb: "Most still update ...", "Many now
    # let ..." (without the adverb the next word is too often a noun: "Most support
    # teams", "Most leaks")
    r"^(Most|Many|Some|Few|Several)\s+(?:still|now|also|often|usually|typically|"
    r"frequently|already|only|never|rarely)\s+([a-z]+)\b"
)
_EVENT_VERBS = frozenset({"happen", "occur", "arise", "result", "start", "begin", "end",
                          "come", "stem", "go", "fail", "fall", "break", "leak"})  # fmt: skip


@per_graph
def common_stems(store: GraphStore) -> frozenset[str]:
    """Stems in more than half of the graph's nodes: its own vocabulary ("data" in a
    graph about data), which every fact shares with the notes alike."""
    df: dict[str, int] = {}
    for nid in store.nodes:
        for w in stems(store.content(nid)):
            df[w] = df.get(w, 0) + 1
    return frozenset(w for w, c in df.items() if 2 * c > len(store))


def make_plan(
    store: GraphStore,
    path: list[str],
    style: EmailStyle,
    repeated: frozenset[str],
    notes: str = "",
    company: str = "",
) -> Plan:
    """The plan for `path` in `style`. `repeated` holds rationales the graph uses on
    many edges: boilerplate, not a reason. `notes` (what the seller knows of the
    reader) decides which facts are worth telling when the walk holds more than
    the email's length allows: those that share the notes' telling words, not the
    graph's own vocabulary. A fact naming the reader's `company` is not told."""
    limit = FACT_WORDS[style.length]
    reaches = bool(path) and is_product_feature(path[-1])
    facts = path[:-1] if reaches else path
    plan = Plan()
    want = stems(notes) - common_stems(store)

    def reason(a: str, b: str, max_words: int = 22) -> str:
        edge = store.edge(a, b)
        if edge is None or edge.rationale.strip() in repeated:
            return ""
        return told_reason(edge.rationale, max_words)

    # The Customer Job is never told: it is the seller's view of the reader's own
    # business, which the reader knows better than anyone.
    cands: list[tuple[float, int, Step]] = []
    told: list[frozenset[str]] = []
    for i, node in enumerate(facts):
        if node == CUSTOMER_JOB:
            continue
        fact = _reader_fact(store, node, limit)
        if not fact.ok or fact.kind == "noun":
            continue  # a bare noun phrase needs a stock frame around it to read
        if is_lecture(fact.text):
            # A definition or a textbook statement lectures the reader on their own
            # field (blind readers: 1 of 5, "explains X to an X company"), however
            # few other facts the walk holds: never told.
            continue
        if names_company(fact.text, company):
            # A fact about the reader's own company tells them their own business
            # (blind readers: 2.6 against 4.5 for the same email without it, packet S)
            continue
        st = stems(fact.text)
        if any(overlap(st, t) >= 0.6 for t in told):
            continue  # two nodes that say the same thing: told once
        told.append(st)
        prev = facts[i - 1] if i > 0 else ""
        edge = store.edge(prev, node) if prev else None
        role = _role(edge.relationship if edge else "", fact.text) if i > 0 else "problem"
        score = 2.0 * len(st & want) + (1.0 if _COST.search(fact.text) else 0.0) - 0.1 * i
        cands.append((score, i, Step(node, role, fact)))
    keep = sorted(cands, key=lambda c: -c[0])[: MAX_FACTS[style.length]]
    plan.steps = [c[2] for c in sorted(keep, key=lambda c: c[1])]
    if plan.steps:
        best = max(keep, key=lambda c: c[0])[2]
        plan.topic_node = best.node if want else plan.steps[0].node
    else:
        plan.steps = _insight(facts, reason, want, MAX_FACTS[style.length])
    if reaches:
        pf = path[-1]
        fact = _reader_fact(store, pf, max(limit, 30))
        # The proof: what the product's customers got, in figures, when its node says
        # so (in any length: it is the email's strongest sentence), else why the edge
        # says the product follows.
        outcome = product_outcome(store.content(pf))
        proof = agree(plain(outcome)) if outcome else ""
        if not proof and len(path) > 1 and style.length >= 1:
            proof = reason(path[-2], pf, 26)
        if proof and overlap(stems(proof), stems(fact.text)) >= 0.4:
            proof = ""  # the product's fact said again in other words
        plan.change = Step(pf, "change", fact, proof)
    return plan
