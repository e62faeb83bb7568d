"""Render an email from a path through the knowledge graph (Jinja2 templates).

The embedded policy picks a path (which nodes, in order) and a style; this
module turns them into the subject and body a person would send. It is pure
(no I/O) and on the hot path (about a thousand emails a second), so the Jinja2
environment and its templates are built once, at import, and the per-node text
clean-up is memoised.

Style choices, and how the rubric judge (`codreamer.judge.rubric`) sees them —
they differ in quality the way real templates do, which is what gives the
policy something to learn:

=======  =  ==============================================  ==========================
choice   #  renders (example: scenario northfield-dairy-ops)  what the rubric notices
=======  =  ==============================================  ==========================
subject  0  "Priya, an idea for Northfield Dairy"           short, names prospect and
                                                            company (best)
subject  1  "A quick introduction"                          generic: no
                                                            personalisation
subject  2  "A few thoughts on how we might be able to      long: out of the subject
            help Northfield Dairy with temperature          length band
            excursions this quarter"
opening  0  "Hi Priya," + "I have been reading about        first name, company and
            Northfield Dairy's work in dairy distribution,  industry (best)
            and one challenge stood out."
opening  1  "Hi Priya," + "I wanted to share a thought      first name only
            that may be relevant to you."
opening  2  "Hello," + "I am writing to share some          no name, no company
            information with you."
cta      0  "Would you be open to a 20-minute discovery     the goal asked as a
            call?"                                          question (full credit)
cta      1  "I would welcome a 20-minute discovery call     the goal stated, not asked
            whenever it suits you."                         (partial credit)
=======  =  ==============================================  ==========================

Body, whatever the style: greeting; the opening sentence and the first node's
content; one sentence per further hop (a connective, the node's content, and the
edge's rationale trimmed to a clause when it reads as prose); the product (the
Product Feature node's content) when the path reaches one, otherwise an offer to
compare notes; the call to action; a sign-off with the sender (DESIGN §2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import jinja2

from codreamer.graph.schema import is_product_feature
from codreamer.models import CUSTOMER_JOB, FinalEmail, Scenario, Sender

if TYPE_CHECKING:  # networkx stays out of the import path
    from codreamer.graph.store import GraphStore

N_SUBJECTS = 3
N_OPENINGS = 3
N_CTAS = 2
DEFAULT_SENDER = Sender()


@dataclass(frozen=True, slots=True)
class EmailStyle:
    """The style part of the embedded policy's action: indices into the template lists."""

    subject: int = 0
    opening: int = 0
    cta: int = 0

    def __post_init__(self) -> None:
        for name, value, n in (
            ("subject", self.subject, N_SUBJECTS),
            ("opening", self.opening, N_OPENINGS),
            ("cta", self.cta, N_CTAS),
        ):
            if not 0 <= value < n:
                raise ValueError(f"EmailStyle.{name} must be in [0, {n - 1}], got {value}")


DEFAULT_STYLE = EmailStyle(0, 0, 0)
ALL_STYLES: tuple[EmailStyle, ...] = tuple(
    EmailStyle(s, o, c) for s in range(N_SUBJECTS) for o in range(N_OPENINGS) for c in range(N_CTAS)
)

# --- templates (compiled once) ------------------------------------------------

_ENV = jinja2.Environment(
    autoescape=False,  # plain-text email; HTML escaping is the dashboard's job
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=False,
)

_SUBJECTS = tuple(
    _ENV.from_string(src)
    for src in (
        "{% if company %}{{ first }}, an idea for {{ company }}"
        "{% else %}{{ first }}, an idea on {{ topic }}{% endif %}",
        "A quick introduction",
        "A few thoughts on how we might be able to help {{ company or 'your team' }}"
        " with {{ topic }} this quarter",
    )
)

_GREETINGS = ("Hi {{ first }},", "Hi {{ first }},", "Hello,")
_OPENINGS = (
    "I have been reading about {{ company + \"'s\" if company else 'your' }} work"
    "{% if industry %} in {{ industry }}{% endif %}, and one challenge stood out.",
    "I wanted to share a thought that may be relevant to you.",
    "I am writing to share some information with you.",
)
_CTAS = (
    "{% if obj %}Would you be open to {{ obj }}?"
    "{% else %}Would you be open to the following: {{ goal }}?{% endif %}",
    "{% if obj %}I would welcome {{ obj }} whenever it suits you."
    "{% else %}I would like to propose the following: {{ goal }}.{% endif %}",
)

# Paragraphs are joined explicitly ("\n\n") so that optional parts never leave
# stray blank lines; whitespace control (`{%-`) keeps the source readable.
_BODY_SRC = (
    "{{ greeting }}\n\n"
    "{{ opening }}{% if first_fact %} {{ first_fact }}{% endif %}\n\n"
    "{% for hop in middle %}{{ hop }}\n\n{% endfor %}"
    "{% if product %}This is where we can help. {{ product }}"
    "{% else %}I would be glad to share how other teams are tackling this.{% endif %}\n\n"
    "{{ cta }}\n\n"
    "Best regards,\n{{ sender }}"
)

# One body template per (opening, cta): greeting/opening/cta text is inlined so a
# render is a single template call.
_BODIES = {
    (o, c): _ENV.from_string(
        _BODY_SRC.replace("{{ greeting }}", _GREETINGS[o])
        .replace("{{ opening }}", _OPENINGS[o])
        .replace("{{ cta }}", _CTAS[c])
    )
    for o in range(N_OPENINGS)
    for c in range(N_CTAS)
}

# Connectives that open each further hop's sentence, cycled.
_CONNECTIVES = (
    "That leads to a related point:",
    "In turn, there is a further link:",
    "Which brings us to this:",
    "On top of that:",
)

# --- text helpers (memoised: the same node text recurs in every rollout) ------------

_WS = re.compile(r"\s+")
_SENT_END = re.compile(r"(?<=[.!?])\s+")
_META_RATIONALE = re.compile(r"\bnodes?\b|current_node|need/challenge", re.IGNORECASE)
_HASH_SUFFIX = re.compile(r"[-_][0-9a-f]{6,}$")
_GOAL_VERB = re.compile(
    r"^(?:secure|book|schedule|arrange|set\s+up|get|land|start|run|organi[sz]e|hold|plan|"
    r"propose|request|win|obtain|confirm|have)\s+(?=(?:a|an|the|one|two|three|\d)\b)",
    re.IGNORECASE,
)
_MAX_RATIONALE_WORDS = 24


@lru_cache(maxsize=65536)
def as_sentence(text: str) -> str:
    """Trim, capitalise and end with a full stop."""
    t = _WS.sub(" ", text).strip()
    if not t:
        return ""
    t = t[0].upper() + t[1:]
    if t[-1] not in ".!?":
        t = t.rstrip(",;:") + "."
    return t


@lru_cache(maxsize=65536)
def rationale_clause(rationale: str) -> str:
    """An edge rationale cut to one readable clause; "" when it talks about the graph itself."""
    t = _WS.sub(" ", rationale).strip()
    if not t or _META_RATIONALE.search(t):
        return ""
    first = _SENT_END.split(t, maxsplit=1)[0]
    first = re.split(r";| — | - ", first, maxsplit=1)[0].strip()
    words = first.split()
    if len(words) > _MAX_RATIONALE_WORDS:
        head = " ".join(words[:_MAX_RATIONALE_WORDS])
        cut = head.rfind(",")
        if cut < 0 or len(head[:cut].split()) < 6:
            return ""
        first = head[:cut]
    return as_sentence(first)


@lru_cache(maxsize=4096)
def goal_object(goal: str) -> str:
    """'Secure a 20-minute discovery call' -> 'a 20-minute discovery call' ('' if no match)."""
    g = _WS.sub(" ", goal).strip().rstrip(".!?")
    m = _GOAL_VERB.match(g)
    return g[m.end() :] if m else ""


@lru_cache(maxsize=65536)
def topic_of(node_id: str) -> str:
    """A readable topic from a node id: 'data-use-cases-67d1b3c1' -> 'data use cases'."""
    t = _HASH_SUFFIX.sub("", node_id).replace("-", " ").replace("_", " ")
    t = _WS.sub(" ", t).strip()
    return t.lower() if t else "your work"


def _hop_sentence(index: int, content: str, rationale: str) -> str:
    connective = _CONNECTIVES[index % len(_CONNECTIVES)]
    fact = as_sentence(content)
    if not fact:
        fact = "there is more to it."
    # Every connective ends in a colon, so the fact keeps its own capitalisation
    # (guessing which first words are proper nouns would be worse).
    text = f"{connective} {fact}"
    reason = rationale_clause(rationale)
    return f"{text} {reason}" if reason else text


def compose_email(
    store: GraphStore,
    path: list[str],
    scenario: Scenario,
    style: EmailStyle = DEFAULT_STYLE,
    sender: Sender = DEFAULT_SENDER,
) -> FinalEmail:
    """The email for `path` (node ids in order), to `scenario.prospect`, in `style`.

    Citations are the path itself. A path that does not end at a Product Feature
    node still gives a sane email, without the product paragraph.
    """
    prospect = scenario.prospect
    first = prospect.first_name
    company = (prospect.company or "").strip()
    industry = (prospect.industry or "").strip()
    goal = _WS.sub(" ", scenario.goal).strip().rstrip(".!?")

    first_fact = as_sentence(store.content(path[0])) if path else ""
    reaches_pf = len(path) > 0 and is_product_feature(path[-1])
    middle_ids = path[1:-1] if reaches_pf else path[1:]
    middle: list[str] = []
    for i, nid in enumerate(middle_ids, start=1):
        edge = store.edge(path[i - 1], nid)
        middle.append(_hop_sentence(i - 1, store.content(nid), edge.rationale if edge else ""))
    product = ""
    if reaches_pf and len(path) > 1:
        pf = path[-1]
        edge = store.edge(path[-2], pf)
        parts = [as_sentence(store.content(pf)), rationale_clause(edge.rationale if edge else "")]
        product = " ".join(p for p in parts if p) or "Our product was built for exactly this."
    elif reaches_pf:  # a path of only the Product Feature node
        product = as_sentence(store.content(path[0]))
        first_fact = ""

    topic = topic_of(path[1] if len(path) > 1 else path[0]) if path else "your work"
    subject = _SUBJECTS[style.subject].render(first=first, company=company, topic=topic)
    body = _BODIES[(style.opening, style.cta)].render(
        first=first,
        company=company,
        industry=industry,
        first_fact=first_fact,
        middle=middle,
        product=product,
        obj=goal_object(goal),
        goal=goal[:1].lower() + goal[1:] if goal else "",
        sender=sender.signature(),
    )
    return FinalEmail(subject=subject, body=body, citations=list(path))


def shortest_path(store: GraphStore, source: str | None = None) -> list[str]:
    """A shortest path from `source` (default Customer Job) to a Product Feature node,
    taking the first edge in graph order at each tie; `[source]` when none is reachable."""
    node = source or CUSTOMER_JOB
    path = [node]
    hops = store.hops_to_feature(node)
    while hops:  # None (unreachable) or 0 (arrived) stop
        node = next(
            nb.id for nb in store.out_neighbours(node) if store.hops_to_feature(nb.id) == hops - 1
        )
        path.append(node)
        hops -= 1
    return path
