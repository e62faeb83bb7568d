"""The writer: a walk and a style in, an email out (DESIGN §3).

    plan.py     what each fact does in the argument (situation, problem, cost,
                cause, change, proof), in the chain's order, merged or subordinated
    text.py     a node's clearest sentence for the customer (no notes for the graph's
                author; a shortened fact keeps its contrast and its cause)
    voice.py    a fact told to the reader ("you"), plain words, the seller's "we"
    grammar.py  a clause told from a noun phrase, without a parser
    realise.py  the plan rendered through the Jinja2 templates in templates/*.j2
    check.py    the final check: a broken sentence is repaired, re-framed or dropped
    subject.py  the subject: the reader's problem in the reader's words

Pure (no I/O after the templates load at import) and deterministic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codreamer.agent.style import DEFAULT_STYLE, EmailStyle
from codreamer.agent.writer.plan import make_plan, names_company, stems, tellable
from codreamer.agent.writer.realise import NEUTRAL_NAMES, Realiser, goal_object, graph_facts
from codreamer.graph.schema import is_product_feature
from codreamer.models import CUSTOMER_JOB, FinalEmail, Scenario, Sender

if TYPE_CHECKING:
    from codreamer.graph.store import GraphStore

DEFAULT_SENDER = Sender()

__all__ = [
    "DEFAULT_SENDER",
    "NEUTRAL_NAMES",
    "goal_object",
    "names_company",
    "tellable",
    "write_email",
]


def _to_feature(store: GraphStore, path: list[str], notes: str) -> list[str]:
    """`path` carried on to the nearest Product Feature reachable from its last node
    that reaches one (at each hop, the neighbour whose text best matches the notes):
    a walk that stopped short still says what the seller does about its problem.
    When every way on runs back through the walk, the route starts from an earlier
    node; when none is left, the feature is told after the walk all the same (an
    email that never says what the seller does is no sales email: blind readers, 1
    of 5)."""
    if not path or is_product_feature(path[-1]):
        return path
    want = stems(notes)
    for start in reversed(path):
        if start not in store or not store.hops_to_feature(start):
            continue
        route = _route(store, start, path, want)
        if route:
            return list(path) + route
    features = [n for n in store.nodes if is_product_feature(n)]
    if not features or not any(n in store for n in path):
        return path
    return list(path) + [min(features, key=lambda f: (-len(stems(store.content(f)) & want), f))]


def _route(store: GraphStore, cur: str, path: list[str], want: frozenset[str]) -> list[str]:
    """The hops from `cur` to a Product Feature through nodes not on `path`, each the
    neighbour one hop nearer whose text best matches the notes ([] if there is none)."""
    out: list[str] = []
    hops = store.hops_to_feature(cur)
    while hops:
        nxt = [
            nb.id
            for nb in store.out_neighbours(cur)
            if store.hops_to_feature(nb.id) == hops - 1 and nb.id not in path and nb.id not in out
        ]
        if not nxt:
            return []
        cur = max(nxt, key=lambda n: len(stems(store.content(n)) & want))
        out.append(cur)
        hops -= 1
    return out if out and is_product_feature(out[-1]) else []


def write_email(
    store: GraphStore,
    path: list[str],
    scenario: Scenario,
    style: EmailStyle = DEFAULT_STYLE,
    sender: Sender | None = None,
    *,
    reach_feature: bool = True,
) -> FinalEmail:
    """The email for `path` (node ids in order), to `scenario.prospect`, in `style`,
    signed by `sender` (default DEFAULT_SENDER). A path that stops before a Product
    Feature is carried on to the nearest one it reaches (unless `reach_feature` is
    False: the email of the walk alone); citations are the nodes the email draws on
    (the path, so extended)."""
    vocab, repeated = graph_facts(store)
    notes = scenario.prospect.notes or ""
    if reach_feature:
        path = _to_feature(store, path, notes)
    company = scenario.prospect.company or ""
    if company and not any(
        names_company(store.content(n), company)
        for n in path
        if n != CUSTOMER_JOB and not is_product_feature(n)
    ):
        # No fact of the walk names the reader's company: the plan is the same for
        # every company, and cached once (a CRM list's leads each have their own).
        company = ""
    key = (tuple(path), style.length, notes, company)
    plan = vocab.plans.get(key)
    if plan is None:  # the plan depends on the walk, the length, the notes and the company
        if len(vocab.plans) >= 50_000:
            vocab.plans.clear()
        plan = vocab.plans[key] = make_plan(store, path, style, repeated, notes, company)
    return Realiser(store, path, scenario, style, sender or DEFAULT_SENDER, vocab).render(plan)
