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
from codreamer.agent.writer.plan import make_plan
from codreamer.agent.writer.realise import NEUTRAL_NAMES, Realiser, goal_object, graph_facts
from codreamer.models import FinalEmail, Scenario, Sender

if TYPE_CHECKING:
    from codreamer.graph.store import GraphStore

DEFAULT_SENDER = Sender()

__all__ = ["DEFAULT_SENDER", "NEUTRAL_NAMES", "goal_object", "write_email"]


def write_email(
    store: GraphStore,
    path: list[str],
    scenario: Scenario,
    style: EmailStyle = DEFAULT_STYLE,
    sender: Sender | None = None,
) -> FinalEmail:
    """The email for `path` (node ids in order), to `scenario.prospect`, in `style`,
    signed by `sender` (default DEFAULT_SENDER). Citations are the path itself; a
    path that does not reach a Product Feature gives an email without the product."""
    vocab, repeated = graph_facts(store)
    key = (tuple(path), style.length)
    plan = vocab.plans.get(key)
    if plan is None:  # the plan depends on the walk and the length only
        if len(vocab.plans) >= 50_000:
            vocab.plans.clear()
        plan = vocab.plans[key] = make_plan(store, path, style, repeated)
    return Realiser(store, path, scenario, style, sender or DEFAULT_SENDER, vocab).render(plan)
