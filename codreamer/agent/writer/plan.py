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
from typing import TYPE_CHECKING

from codreamer.agent.style import EmailStyle
from codreamer.agent.writer.text import Fact, customer_fact, reason_clause
from codreamer.agent.writer.voice import customer_class, plain, seller_voice, to_reader, you_form
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


def _reader_fact(store: GraphStore, node: str, limit: int) -> Fact:
    fact = customer_fact(store.content(node), limit)
    if not fact.ok:
        return fact
    text = plain(fact.text)
    if fact.kind == "predicate" and not is_product_feature(node):
        # "Validates data quality by ..." is the reader's own work: "you validate ..."
        told = you_form(text)
        if told:
            return Fact(f"you {told}", "clause")
        return Fact(f"your team {text[0].lower()}{text[1:]}", "clause")
    if is_product_feature(node) and fact.kind == "clause":
        voiced = seller_voice(text)
        if voiced:
            return Fact(voiced[0].upper() + voiced[1:], "clause")
    classes = customer_class(store.content(CUSTOMER_JOB)) if CUSTOMER_JOB in store else ()
    return Fact(to_reader(text, classes), fact.kind)


def make_plan(
    store: GraphStore, path: list[str], style: EmailStyle, repeated: frozenset[str]
) -> Plan:
    """The plan for `path` in `style`. `repeated` holds rationales the graph uses on
    many edges: boilerplate, not a reason."""
    limit = FACT_WORDS[style.length]
    reaches = bool(path) and is_product_feature(path[-1])
    facts = path[:-1] if reaches else path
    plan = Plan()

    def reason(a: str, b: str, max_words: int = 22) -> str:
        edge = store.edge(a, b)
        if edge is None or edge.rationale.strip() in repeated:
            return ""
        r = reason_clause(edge.rationale, max_words)
        return plain(r) if r else ""

    # The situation (the Customer Job) is implicit once there is a problem to open on:
    # told to one of the product's customers, it explains their business back to them.
    start = 1 if len(facts) > 1 and facts[0] == CUSTOMER_JOB else 0
    for i in range(start, len(facts)):
        node = facts[i]
        fact = _reader_fact(store, node, limit)
        if not fact.ok:
            continue
        if node == CUSTOMER_JOB or i == 0:
            role = "situation" if node == CUSTOMER_JOB else "problem"
            why = ""
        else:
            edge = store.edge(facts[i - 1], node)
            role = _role(edge.relationship if edge else "", fact.text)
            # Reasons between steps only in the detailed length; the first step's
            # reason (why the job meets this problem) only when it is the whole story.
            why = reason(facts[i - 1], node) if style.length == 2 and i > start else ""
        step = Step(node, role, fact, why)
        prev = plan.steps[-1] if plan.steps else None
        if prev is not None and (
            fact.kind == "noun" or (style.length == 0 and len(plan.steps) >= 2)
        ):
            step.joined = True
        plan.steps.append(step)
    if plan.steps:
        plan.topic_node = plan.steps[0].node
    if reaches:
        pf = path[-1]
        fact = _reader_fact(store, pf, max(limit, FACT_WORDS[1]))
        proof = reason(path[-2], pf, 26) if len(path) > 1 and style.length >= 1 else ""
        plan.change = Step(pf, "change", fact, proof)
    return plan
