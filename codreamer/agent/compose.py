"""Composer v2: render an email from a path through the knowledge graph (Jinja2).

The embedded policy picks the facts (a path from the seed to a Product Feature)
and a style; this module turns them into an email a person would send. It is
pure (no I/O) and on the hot path (thousands of emails a second), so templates
are compiled once at import and per-node text work is memoised.

What a composed email is:

* 60-150 words in the standard length; a subject of at most 8 words.
* Each fact is paraphrased, not pasted: the node's first sentence, cut to a
  clause budget that depends on the length choice, with tangents ("just like
  how ...", "similar to ...") dropped, and framed for the reader ("you", "your
  team") by the sentence that introduces it.
* Edge rationales are the reasoning between facts ("That matters because ...");
  one that talks about the graph itself ("this node ...") is never used.
* Transitions vary: every slot has several wordings, picked by a stable hash of
  the prospect and the path, so two prospects rarely read the same sentences.
* Signed by the sender (name, title, company); never a placeholder.

The style (`EmailStyle`), each an index into a small list of choices:

    angle     0 risk: lead with what goes wrong    1 outcome: lead with what changes
              2 how: walk through how it works
    register  0 peer: "Hi Priya," ... "Best,"      1 formal: "Dear Priya Natarajan," ...
              "Kind regards,"
    length    0 brief (short clauses, no reasons)  1 standard (the product's reason)
              2 detailed (every step's reason)
    ask       0 soft question carrying the goal    1 direct: the goal with a time
    subject   0 "<topic> at <company>"             1 "<first name>, a question on <topic>"
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import jinja2

from codreamer.graph.schema import is_product_feature
from codreamer.models import CUSTOMER_JOB, FinalEmail, Scenario, Sender

if TYPE_CHECKING:  # networkx stays out of the import path
    from codreamer.graph.store import GraphStore

ANGLES = ("risk", "outcome", "how")
REGISTERS = ("peer", "formal")
LENGTHS = ("brief", "standard", "detailed")
ASKS = ("soft", "direct")
SUBJECTS = ("topic", "question")
STYLE_CHOICES: tuple[tuple[str, int], ...] = (
    ("angle", len(ANGLES)),
    ("register", len(REGISTERS)),
    ("length", len(LENGTHS)),
    ("ask", len(ASKS)),
    ("subject", len(SUBJECTS)),
)
# Prospect names that mean "no one in particular" (the neutral reader of a run on
# a graph of its own): greeted with "Hello,", never by name.
NEUTRAL_NAMES = frozenset({"there", "reader", "colleague"})


@dataclass(frozen=True, slots=True)
class EmailStyle:
    """The style part of the embedded policy's action: an index per choice."""

    angle: int = 0
    register: int = 0
    length: int = 1
    ask: int = 0
    subject: int = 0

    def __post_init__(self) -> None:
        for name, n in STYLE_CHOICES:
            value = getattr(self, name)
            if not 0 <= value < n:
                raise ValueError(f"EmailStyle.{name} must be in [0, {n - 1}], got {value}")

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name, _ in STYLE_CHOICES}


DEFAULT_STYLE = EmailStyle()
DEFAULT_SENDER = Sender()


def _all_styles() -> tuple[EmailStyle, ...]:
    out = [EmailStyle()]
    for name, n in STYLE_CHOICES:
        out = [EmailStyle(**{**s.as_dict(), name: k}) for s in out for k in range(n)]
    return tuple(out)


ALL_STYLES: tuple[EmailStyle, ...] = _all_styles()

# --- templates (compiled once) ------------------------------------------------

_ENV = jinja2.Environment(
    autoescape=False,  # plain-text email; HTML escaping is the dashboard's job
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=False,
)
_T = _ENV.from_string

_GREETING = ("Hi {first},", "Dear {full},")
_SIGNOFF = ("Best,", "Kind regards,")

# Opening lines that frame the first fact (the customer's job) for the reader.
# Several wordings per (angle, register); which one is a stable hash (see _pick).
_OPEN = {
    ("risk", "peer"): (
        "Running {what}, you will know the pressure behind this:",
        "One thing I keep hearing from {peers}:",
        "You know this part of {what} better than I do:",
    ),
    ("risk", "formal"): (
        "Many {peers} describe the same pressure:",
        "I am writing about a risk that {peers} often raise:",
    ),
    ("outcome", "peer"): (
        "A quick thought on {what} at {where}:",
        "I had {where} in mind when I read this:",
        "Something that could change your week at {where}:",
    ),
    ("outcome", "formal"): (
        "I would like to share an idea for {where}:",
        "I am writing with a suggestion for {where}:",
    ),
    ("how", "peer"): (
        "Here is how I see the problem from your side:",
        "Let me lay out the chain as I understand it for {where}:",
    ),
    ("how", "formal"): (
        "Allow me to set out the problem as I understand it:",
        "Briefly, here is how the problem looks from your side:",
    ),
}
# Introducing a further fact, in the angle's frame: the edge carries the logic, the
# wording says whether the chain is told as what goes wrong, what changes, or how
# it works (the judge's `fit` reads that frame against the reader's role).
_STEP = {
    "risk": (
        "On your side, that shows up as this:",
        "Which leads to a second problem:",
        "From there the risk grows:",
        "Where it really hurts:",
        "The knock-on problem:",
    ),
    "outcome": (
        "This is where the savings are:",
        "This is the part worth improving:",
        "Here is where better results start:",
        "There is time to win back here:",
        "Where your team could get hours back:",
    ),
    "how": (
        "Step by step, the cause is this:",
        "The next link in the process:",
        "In practice, that works out as:",
        "How that plays out day to day:",
        "Which in turn means:",
    ),
}
# A last line that states the frame plainly (standard and detailed lengths).
_FRAME_CLOSE = {
    "risk": ("Catching it early keeps the problem small.", "Left alone, that gap keeps costing."),
    "outcome": ("The payoff: fewer surprises, hours back.", "Your team gets its hours back."),
    "how": ("That is the mechanism, step by step.", "Each step feeds the next."),
}
_BECAUSE = ("That matters because", "This is important since", "The reason:")
_PRODUCT = {
    "risk": (
        "That is the gap {seller} closes.",
        "This is exactly where {seller} helps.",
    ),
    "outcome": (
        "Here is what changes with {seller}.",
        "With {seller}, that picture changes.",
    ),
    "how": (
        "This is how {seller} fits in.",
        "Here is how {seller} handles it.",
    ),
}
_NO_PRODUCT = (
    "I would be glad to compare notes on how other teams handle this.",
    "Happy to share how similar teams are tackling it.",
)
_ASK = {
    ("soft", "peer"): (
        "Would {obj} be worth it to see whether this fits?",
        "Open to {obj} to see whether it fits your setup?",
    ),
    ("soft", "formal"): (
        "Would you be open to {obj} to explore whether this is a fit?",
        "Might you have time for {obj} in the coming weeks?",
    ),
    ("direct", "peer"): (
        "Could we book {obj} next Tuesday or Wednesday?",
        "Do you have time for {obj} this week or next?",
    ),
    ("direct", "formal"): (
        "Could we schedule {obj} next Tuesday or Wednesday?",
        "May I propose {obj} early next week?",
    ),
}
# The email itself: one Jinja2 render per email; the sentences inside it are
# assembled with str.format from the slot wordings above (cheap, and on the hot path).
_BODY = _T(
    "{{ greeting }}\n\n"
    "{% for p in paragraphs %}{{ p }}\n\n{% endfor %}"
    "{{ signoff }}\n{{ signature }}"
)


@lru_cache(maxsize=65536)
def _index(n: int, key: str, slot: str) -> int:
    h = hashlib.blake2b(f"{key}|{slot}".encode(), digest_size=4).digest()
    return int.from_bytes(h, "big") % n


def _pick(options: tuple[str, ...], key: str, slot: str) -> str:
    """A stable choice among wordings: the same email every time for the same
    prospect and path, different sentences for different prospects."""
    return options[_index(len(options), key, slot)]


# --- text helpers (memoised: the same node text recurs in every rollout) ------------

_WS = re.compile(r"\s+")
_SENT_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_META_RATIONALE = re.compile(
    r"\bnodes?\b|current_node|need/challenge|\bthis concept\b|product's capabilities",
    re.IGNORECASE,
)
# Tangents and analogies a paraphrase drops ("..., just like how waffles ...").
_TANGENT = re.compile(
    r",?\s+(?:just\s+(?:like|as)|much\s+like|similar\s+to|akin\s+to|as\s+one\s+might|"
    r"like\s+how|which\s+can\s+also\s+be|and\s+(?:it\s+)?(?:they\s+)?can\s+also\s+be|"
    r"which\s+can\s+be\s+complemented|can\s+be\s+complemented)\b.*$",
    re.IGNORECASE,
)
_HASH_SUFFIX = re.compile(r"[-_][0-9a-f]{6,}$")
_GOAL_VERB = re.compile(
    r"^(?:secure|book|schedule|arrange|set\s+up|get|land|start|run|organi[sz]e|hold|plan|"
    r"propose|request|win|obtain|confirm|have)\s+(?=(?:a|an|the|one|two|three|\d)\b)",
    re.IGNORECASE,
)
# Words limits per clause for brief / standard / detailed.
_FACT_WORDS = (14, 24, 30)
_MAX_RATIONALE_WORDS = 22
# First words that are safe to lower-case after a lead-in ("Most losses ..." ->
# "most losses ..."); anything else (a name, an acronym) keeps its case.
_LOWERABLE = frozenset(
    [
        "a",
        "an",
        "the",
        "most",
        "many",
        "every",
        "each",
        "some",
        "any",
        "all",
        "no",
        "one",
        "two",
        "three",
        "several",
        "few",
        "without",
        "with",
        "during",
        "when",
        "while",
        "if",
        "once",
        "after",
        "before",
        "since",
        "because",
        "as",
        "in",
        "on",
        "at",
        "for",
        "from",
        "by",
        "to",
        "of",
        "demand",
        "food",
        "distribution",
        "distributors",
        "regional",
        "refrigeration",
        "manual",
        "food",
        "safety",
        "temperature",
        "drivers",
        "experienced",
        "cargo",
        "grocers",
        "synthetic",
        "data",
        "ai",
        "model",
        "models",
        "methods",
        "techniques",
        "key",
        "common",
        "creating",
        "challenges",
        "precision",
        "development",
        "generates",
        "validates",
        "requires",
        "defines",
        "efficiently",
        "evaluating",
        "there",
        "this",
        "these",
        "those",
        "it",
        "its",
    ]
)


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


# Clause boundaries a paraphrase may be cut at. Not before an adverb ("often",
# "usually"): that cuts mid-predicate ("a temperature problem is usually found ...").
_BOUNDARY = re.compile(r",\s|;\s|\s—\s|\s(?:and|which|so|while|because|but)\s")


_LIST_NEXT = re.compile(r"\s*(?:\S+\s+){0,2}?\S+?(?:,|\s(?:and|or)\s)")


def _in_list(text: str, at: int) -> bool:
    """Whether a comma at `at` separates items of a list ("collection, preprocessing,
    training" or "analysts, finance and operations"): cutting there leaves a fragment."""
    before = text[:at].rsplit(",", 1)
    if len(before) == 2 and len(before[1].split()) <= 3:
        return True  # the item before this cut is short and follows a comma
    # a comma, then a short item and "," / "and" / "or"
    return text[at] == "," and bool(_LIST_NEXT.match(text, at + 1))


def _cut_words(text: str, limit: int) -> str:
    """About `limit` words, cut only at a clause boundary (never mid-phrase): the
    last boundary within the limit, else the first one within 1.5x the limit, else
    the whole clause."""
    words = text.split()
    if len(words) <= limit:
        return text
    cuts = [m.start() for m in _BOUNDARY.finditer(text) if not _in_list(text, m.start())]
    lengths = [(c, len(text[:c].split())) for c in cuts]
    inside = [c for c, n in lengths if 6 <= n <= limit]
    if inside:
        return text[: inside[-1]]
    beyond = [c for c, n in lengths if limit < n <= limit * 1.5]
    return text[: beyond[0]] if beyond else text


@lru_cache(maxsize=65536)
def paraphrase(content: str, length: int = 1) -> str:
    """A node's fact as one clean sentence: first sentence, tangents dropped,
    cut to the length's word budget at a clause boundary."""
    t = _WS.sub(" ", content).strip()
    if not t:
        return ""
    t = _SENT_END.split(t, maxsplit=1)[0].rstrip(".!? ")
    t = _TANGENT.sub("", t).strip().rstrip(",;: ")
    t = _cut_words(t, _FACT_WORDS[max(0, min(length, 2))])
    return as_sentence(t)


@lru_cache(maxsize=65536)
def lowered(sentence: str) -> str:
    """The sentence with its first word lower-cased when that is safe."""
    if not sentence:
        return sentence
    first = sentence.split(" ", 1)[0]
    if first.lower().strip(",.") in _LOWERABLE and not first[1:2].isupper():
        return sentence[0].lower() + sentence[1:]
    return sentence


@lru_cache(maxsize=65536)
def rationale_clause(rationale: str) -> str:
    """An edge rationale cut to one readable clause; "" when it talks about the graph itself."""
    t = _WS.sub(" ", rationale).strip()
    if not t or _META_RATIONALE.search(t):
        return ""
    first = re.split(r"(?<=[.!?])\s+", t, maxsplit=1)[0]
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
    t = t.split(":")[-1]
    t = _WS.sub(" ", t).strip()
    words = [_topic_word(w) for w in t.split()[:3]]
    return " ".join(words) if words else "your work"


# Lower-cased in ids ("ai-model-evaluation"), written in capitals in prose.
_ACRONYMS = frozenset(
    {"ai", "ml", "llm", "llms", "api", "apis", "sdk", "kpi", "kpis", "qa", "bi", "roi"}
    | {"gdpr", "iot", "erp", "crm", "ui", "ux", "sql", "etl", "hr"}
)


def _topic_word(word: str) -> str:
    if len(word) > 1 and word.isupper():  # already an acronym: "AI", "ERP"
        return word
    low = word.lower()
    return low.upper() if low in _ACRONYMS else low


def _because(rationale: str, key: str, i: int) -> str:
    clause = rationale_clause(rationale)
    if not clause:
        return ""
    lead = _BECAUSE[(_index(len(_BECAUSE), key, "why") + i) % len(_BECAUSE)]
    body = clause if lead.endswith(":") else lowered(clause)
    return f"{lead} {body}"


def compose_email(
    store: GraphStore,
    path: list[str],
    scenario: Scenario,
    style: EmailStyle = DEFAULT_STYLE,
    sender: Sender | None = None,
) -> FinalEmail:
    """The email for `path` (node ids in order), to `scenario.prospect`, in `style`,
    signed by `sender` (name, company, title; default DEFAULT_SENDER).

    Citations are the path itself. A path that does not end at a Product Feature
    node still gives a sane email, without the product paragraph.
    """
    sender = sender or DEFAULT_SENDER
    prospect = scenario.prospect
    first = prospect.first_name
    full = " ".join(prospect.name.split()) or first
    neutral = first.lower() in NEUTRAL_NAMES  # a reader we know nothing about
    company = (prospect.company or "").strip()
    industry = (prospect.industry or "").strip()
    goal = _WS.sub(" ", scenario.goal).strip().rstrip(".!?")
    angle, register = ANGLES[style.angle], REGISTERS[style.register]
    length, ask = style.length, ASKS[style.ask]
    key = f"{prospect.name}|{company}|{'/'.join(path)}"
    # Without a sender company the product paragraph names the product's role, not
    # a vague "our team" (which read as if a consultancy were writing).
    seller = (sender.company or "").strip() or "our product"

    reaches_pf = bool(path) and is_product_feature(path[-1])
    facts = path[:-1] if reaches_pf and len(path) > 1 else ([] if reaches_pf else path)
    paras: list[str] = []

    # The first fact (usually the customer's job), framed for the reader.
    if facts:
        what = f"{industry} operations" if industry else "a team like yours"
        peers = f"{industry} teams" if industry else "teams like yours"
        where = company or "your team"
        lead = _pick(_OPEN[(angle, register)], key, "open").format(
            what=what, peers=peers, where=where
        )
        # The customer's job describes the product's customers in general; told to one
        # of them it explains their own business back to them. When the walk has a
        # step after it, the email opens on that step (the judge takes the job as
        # implicit in every argument).
        skip = 1 if facts[0] == CUSTOMER_JOB and len(facts) > 1 else 0
        fact = paraphrase(store.content(facts[skip]), length)
        paras.append(f"{lead} {lowered(fact)}" if fact else lead)
    else:
        skip = 0

    # Further facts: one sentence each, the edge's rationale as the reasoning.
    steps: list[str] = []
    step_wordings = _STEP[angle]
    start = _index(len(step_wordings), key, "step")
    for i, nid in enumerate(facts[1 + skip :], start=1 + skip):
        fact = paraphrase(store.content(nid), length)
        if not fact:
            continue
        # consecutive: never the same twice
        intro = step_wordings[(start + i) % len(step_wordings)]
        sentence = f"{intro} {lowered(fact)}"
        if length == 2:
            edge = store.edge(facts[i - 1], nid)
            reason = _because(edge.rationale if edge else "", key, i)
            if reason:
                sentence += f" {reason}"
        steps.append(sentence)
    if steps:
        paras.append(" ".join(steps))

    # The product, with the reason the last step leads to it.
    if reaches_pf:
        pf = path[-1]
        intro = _pick(_PRODUCT[angle], key, "product").format(seller=seller)
        fact = paraphrase(store.content(pf), max(length, 1))
        # A colon, not a full stop: product facts are often a noun phrase ("Waffles
        # and Bagels, featuring a UI for feedback"), which after a full stop would
        # stand alone as a fragment.
        text = f"{intro[:-1]}: {fact}" if fact and intro.endswith(".") else f"{intro} {fact}"
        if length >= 1 and len(path) > 1:
            edge = store.edge(path[-2], pf)
            reason = rationale_clause(edge.rationale if edge else "")
            if reason:
                text += f" {reason}"
        if length >= 1:
            text += " " + _pick(_FRAME_CLOSE[angle], key, "close")
        paras.append(text)
    else:
        paras.append(_pick(_NO_PRODUCT, key, "noproduct"))

    obj = goal_object(goal)
    if obj:
        paras.append(_pick(_ASK[(ask, register)], key, "ask").format(obj=obj))
    else:
        g = goal[:1].lower() + goal[1:] if goal else "a short call"
        paras.append(f"Would you be open to this: {g}?")

    greeting = "Hello," if neutral else _GREETING[style.register].format(first=first, full=full)
    body = _BODY.render(
        greeting=greeting,
        paragraphs=paras,
        signoff=_SIGNOFF[style.register],
        signature=sender.signature(),
    )
    topic = topic_of(_subject_node(path))
    if neutral or style.subject == 0:
        subject = f"{topic[:1].upper()}{topic[1:]} at {company or 'your team'}"
    else:
        subject = f"{first}, a question on {topic}"
    return FinalEmail(subject=_cap_words(subject, 8), body=body, citations=list(path))


def _subject_node(path: list[str]) -> str:
    for nid in path[1:]:
        if not is_product_feature(nid):
            return nid
    return path[0] if path else CUSTOMER_JOB


def _cap_words(text: str, n: int) -> str:
    words = text.split()
    return " ".join(words[:n])


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
