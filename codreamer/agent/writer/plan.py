"""The plan: what each fact of a walk does in the argument, before any wording.

A walk is the policy's choice of facts: a chain from the seed (usually the
Customer Job) to a Product Feature. The plan gives each fact a role,

    situation  the reader's own business (the Customer Job, told to them as "you")
    problem    what goes wrong
    cost       what it costs (a number, money, time or a loss in the fact)
    cause      what lies behind the previous fact (the edge says "caused by", ...)
    effect     what the previous fact leads to
    change     what changes with the product (its fact, and the edge's reason)
    proof      the reason the product helps, when the graph states one

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
from codreamer.agent.writer.grammar import wordset
from codreamer.agent.writer.text import Fact, customer_fact, is_definition, reason_clause
from codreamer.agent.writer.voice import agree, customer_class, plain, to_reader, we_voice
from codreamer.graph.schema import is_product_feature
from codreamer.models import CUSTOMER_JOB

if TYPE_CHECKING:
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
# What goes wrong: a fact with none of these (and no figure) about the reader's own
# kind of business is their routine, which told to them reads as news about their
# own job ("You submit an interconnection application to the utility").
_TROUBLE = re.compile(
    r"\b(?:fail\w*|miss\w*|slow\w*|late\w*|los[est]\w*|lost|delay\w*|risk\w*|errors?|wrong|"
    r"wast\w*|break\w*|broke\w*|stall\w*|unnoticed|only|never|cannot|can't|without|reject\w*|"
    r"complain\w*|churn\w*|short\w*|overload\w*|backlog\w*|manual\w*|by hand|wait\w*|stuck|"
    r"spoil\w*|injur\w*|death\w*|fatal\w*|fines?|penalt\w*|waiv\w*|drift\w*|leak\w*|"
    r"disagree\w*|inconsisten\w*|unread|undocumented|idle|time out|timeouts?|overrun\w*|"
    r"hard|difficult|struggl\w*|lack\w*|gaps?|blind|silent\w*|worse|expos\w*|fraud\w*|"
    r"leakage|outages?|complaints?|claims? against|recall\w*|audit\w*|requir\w*|must|"
    r"expected|deadline\w*|pressure|falls?|fell|drops?|rise|rising|rose|grow\w*)\b",
    re.IGNORECASE,
)
_YOU = re.compile(r"\b(?:you|your)\b", re.IGNORECASE)
_MADE_WORSE = re.compile(r"\b(?:is|are) made worse by\b", re.IGNORECASE)
_FIGURE = re.compile(r"\d|\bpercent\b")  # a figure may be news to the reader; a rule is not
# Words per fact, by length choice (brief, standard, detailed).
FACT_WORDS = (14, 20, 26)


@dataclass(slots=True)
class Step:
    node: str
    role: str
    fact: Fact
    reason: str = ""  # why this step follows from the one before (an edge rationale)
    joined: bool = False  # told in the same sentence as the step before
    known: bool = False  # about the reader's own kind of business: told as shared ground


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


# Function words: two texts that share only "with" and "this" share no topic.
_STOP_STEMS = frozenset(
    w.rstrip("s")[:5] if len(w) > 4 else w[:5]
    for w in wordset(
        """
        with this that these those from have their they them into over about than then
        when where which while what your only also more most many much very such each
        every some other been being were will would could should there here does done
        just like make made still even ever
        """
    )
)


@lru_cache(maxsize=65536)
def stems(text: str) -> frozenset[str]:
    """The content words of `text`, by their first five letters."""
    return frozenset(_stem(w) for w in _STEM_WORD.findall(text.lower())) - _STOP_STEMS


def _stem(word: str) -> str:
    """First five letters, a plural's "s" off first ("loads" and "load" are one word)."""
    if word.endswith("s") and not word.endswith(("ss", "'s")) and len(word) > 4:
        word = word[:-1]
    return word[:5]


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
        voiced = we_voice(text)
        if voiced:
            return Fact(voiced[0].upper() + voiced[1:], "clause")
    classes = customer_class(store.content(CUSTOMER_JOB)) if CUSTOMER_JOB in store else ()
    return Fact(to_reader(text, classes), fact.kind)


def make_plan(
    store: GraphStore,
    path: list[str],
    style: EmailStyle,
    repeated: frozenset[str],
    notes: str = "",
) -> Plan:
    """The plan for `path` in `style`. `repeated` holds rationales the graph uses on
    many edges: boilerplate, not a reason. `notes` (what the seller knows of the
    reader) decides which facts are worth telling when the walk holds more than
    the email's length allows."""
    limit = FACT_WORDS[style.length]
    reaches = bool(path) and is_product_feature(path[-1])
    facts = path[:-1] if reaches else path
    plan = Plan()
    want = stems(notes)

    def reason(a: str, b: str, max_words: int = 22) -> str:
        edge = store.edge(a, b)
        if edge is None or edge.rationale.strip() in repeated:
            return ""
        r = reason_clause(edge.rationale, max_words)
        return agree(plain(r)) if r and not _OVERCLAIM.search(r) and not _WE.search(r) else ""

    # The Customer Job is never told: it is the seller's view of the reader's own
    # business, which the reader knows better than anyone.
    cands: list[tuple[float, int, Step]] = []
    told: list[frozenset[str]] = []
    echoed = ""  # the first fact the notes already say: the reader's problem
    defined = ""  # the first definition left out: the topic when no fact is told
    for i, node in enumerate(facts):
        if node == CUSTOMER_JOB:
            continue
        fact = _reader_fact(store, node, limit)
        if not fact.ok or fact.kind == "noun":
            continue  # a bare noun phrase needs a stock frame around it to read
        st = stems(fact.text)
        if any(overlap(st, t) >= 0.6 for t in told):
            continue  # two nodes that say the same thing: told once
        told.append(st)
        prev = facts[i - 1] if i > 0 else ""
        edge = store.edge(prev, node) if prev else None
        role = _role(edge.relationship if edge else "", fact.text) if i > 0 else "problem"
        score = 2.0 * len(st & want) + (1.0 if _COST.search(fact.text) else 0.0) - 0.1 * i
        if reaches and i == len(facts) - 1:
            score += 1.5  # the problem the product answers: without it the link is unsaid
        if is_definition(fact.text):
            # a definition lectures the reader on their own field ("defines excursions
            # to a logistics director"): never told; the opening names the topic
            defined = defined or node
            continue
        if _MADE_WORSE.search(fact.text):
            score -= 2.0  # "New analysts are made worse by ...": a graph's link read aloud
        if not _TROUBLE.search(fact.text) and not _COST.search(fact.text):
            if _YOU.search(fact.text):
                continue  # the reader's own routine, told to them as news: never said
            score -= 1.5  # a neutral remark: a fact with a problem in it goes first
        if want and overlap(st, want) >= 0.6 and len(st & want) >= 3:
            # the notes already say it: the opening tells it in the reader's own
            # terms, and the same point again as a fact reads as parroting
            echoed = echoed or node
            continue
        known = bool(_YOU.search(fact.text)) and not _FIGURE.search(fact.text)
        cands.append((score, i, Step(node, role, fact, known=known)))
    keep = sorted(cands, key=lambda c: -c[0])[: MAX_FACTS[style.length]]
    plan.steps = [c[2] for c in sorted(keep, key=lambda c: c[1])]
    if echoed:
        plan.topic_node = echoed
    elif plan.steps:
        best = max(keep, key=lambda c: c[0])[2]
        plan.topic_node = best.node if want else plan.steps[0].node
    elif defined:
        plan.topic_node = defined
    if reaches:
        pf = path[-1]
        fact = _reader_fact(store, pf, max(limit, 24))
        proof = reason(path[-2], pf, 26) if len(path) > 1 and style.length >= 1 else ""
        if proof and overlap(stems(proof), stems(fact.text)) >= 0.4:
            proof = ""  # the product's fact said again in other words
        plan.change = Step(pf, "change", fact, proof)
    return plan
