"""The subject's topic: the reader's problem, in the reader's words when the seller's
notes say it ("compressor failures nobody noticed"), else in the graph's.

From the notes: the few contiguous words of one clause that share the most
content words with the facts the email tells (at most six words, starting and
ending on a content word). Without notes, or with nothing shared: the topic of
the first problem's node id when it reads as words, else the fact's opening
noun phrase.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from codreamer.agent.writer.grammar import AUX, base_form, wordset
from codreamer.agent.writer.text import customer_fact, named_product
from codreamer.graph.schema import is_product_feature
from codreamer.models import CUSTOMER_JOB

if TYPE_CHECKING:
    from codreamer.graph.store import GraphStore

_WORD = re.compile(r"[A-Za-z][\w'-]*")
_FUNCTION = wordset(
    """
    a an the and or but of to in on at for from by with without into over under is are
    was were be been has have had do does did can could will would must may might that
    which who this these those it its their our your his her they we you i not no nobody
    until while when after before since as so than then last this next wants want needs
    need still also just very too only even per each every within across through about
    around between against among toward towards during nobody took her him them me my
    when where whether if how what why who
    """
)
_NP_GLUE = frozenset({"of", "and", "for", "in", "on", "with"})
_ACRONYMS = frozenset(
    {"ai", "ml", "llm", "llms", "api", "apis", "sdk", "kpi", "kpis", "qa", "bi", "roi", "gdpr"}
    | {"iot", "erp", "crm", "ui", "ux", "sql", "etl", "hr", "it"}
)
_HASH_SUFFIX = re.compile(r"[-_][0-9a-f]{6,}$|[-_]\d+[-_][0-9a-f]{4,}$")


def _stem(w: str) -> str:
    w = w.lower()
    for suf in ("ations", "ation", "ings", "ing", "ies", "ers", "er", "ed", "es", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[: -len(suf)]
    return w


def _content(w: str) -> bool:
    return w.lower() not in _FUNCTION and len(w) > 2


@lru_cache(maxsize=8192)
def notes_phrase(notes: str, facts: str) -> str:
    """The best window of the notes for the facts ("" when none shares two words)."""
    want = {_stem(w) for w in _WORD.findall(facts) if _content(w)}
    best: tuple[float, str] = (0.0, "")
    for clause in re.split(r"[.;:!?()]|,\s|\s[—-]\s", notes):
        words = _WORD.findall(clause)
        for i in range(len(words)):
            if (
                not _content(words[i])
                or base_form(words[i].lower())
                or words[i].lower().endswith("ed")
            ):
                continue  # start on a noun or an adjective, not a verb ("Lost three ...")
            for j in range(i + 1, min(len(words), i + 6)):
                last = words[j].lower()
                if not _content(words[j]) or base_form(last) or last.endswith(("ing", "ed", "ly")):
                    continue  # end on a noun: the topic must read as a noun phrase
                window = words[i : j + 1]
                inner = window[1:-1]
                if any(not _content(w) and w.lower() not in _NP_GLUE for w in inner):
                    continue  # "reviews to stay high" is not a noun phrase
                if "'" in window[0] or any(base_form(w.lower()) is not None for w in window):
                    continue  # "manager sets rates", "clinics confirm" have a verb in them
                hits = sum(1 for w in window if _content(w) and _stem(w) in want)
                score = hits - 0.15 * len(window)
                if hits >= 2 and score > best[0]:
                    best = (score, " ".join(window))
    return best[1]


def shares_content_word(a: str, b: str) -> bool:
    """Whether two texts share a content word, by its stem ("review", "reviewers")."""
    sa = {_stem(w) for w in _WORD.findall(a) if _content(w)}
    return bool(sa) and any(_content(w) and _stem(w) in sa for w in _WORD.findall(b))


def _inner_capital(w: str) -> bool:
    """A capital after the first letter of any part of a hyphenated word ("BaaS",
    "eDART"; not "First-Time", a title's capitals)."""
    return any(c.isupper() for part in w.split("-") for c in part[1:])


def _case(words: list[str]) -> str:
    out = []
    for w in words:
        low = w.lower()
        # a capital after the first letter marks a name or an acronym as written
        # ("AHJ", "BaaS", "eDART"): kept; "Baas partner volume" read as a typo
        out.append(low.upper() if low in _ACRONYMS else (w if _inner_capital(w) else low))
    return " ".join(out)


@lru_cache(maxsize=65536)
def id_topic(node_id: str) -> str:
    """A readable topic from a node id ('data-use-cases-67d1b3c1' -> 'data use cases'),
    or "" when the id does not read as words."""
    t = _HASH_SUFFIX.sub("", node_id).split(":")[-1].strip()
    # a slug ("data-use-cases") is words joined by dashes; a title keeps its hyphens
    t = t.replace("_", " ") if " " in t else t.replace("-", " ").replace("_", " ")
    words = [w for w in t.split() if w.replace("-", "").replace("+", "").isalpha()]
    if not words or len(words) != len(t.split()) or len(words) > 5:
        return ""
    b = base_form(words[0].lower())
    if b is not None and b != words[0].lower():
        return ""  # "generates high quality synthetic data" is a predicate, not a topic
    return _case(words)


# Node ids that name a slot in the graph's schema, not a topic: a subject made of one
# reads as an unfilled template ("Product feature at Lumen Synthetic").
_SCHEMA_IDS = wordset(
    """
    product feature features customer job pain point points solution solutions benefit
    benefits use case cases capability capabilities node concept topic problem problems
    outcome outcomes value driver drivers need needs challenge challenges process
    """
)


def _readable(node_id: str) -> str:
    """The node's id as a topic, or "" for a product node or an id that only names the
    schema's slot ("Product Feature", "Pain Point")."""
    if is_product_feature(node_id) or node_id == CUSTOMER_JOB:
        return ""
    topic = id_topic(node_id)
    if not topic or all(w.lower() in _SCHEMA_IDS for w in topic.split()):
        return ""
    # "Low first-time fix rate at Summit Air" tells a stranger their numbers are bad
    # (blind readers: "asserts a low fix rate with no basis"): the subject names the
    # measure, not a verdict on it
    words = topic.split()
    if len(words) > 1 and words[0].lower() in _VERDICT and words[-1].lower() in _MEASURE:
        topic = " ".join(words[1:])
    return topic


_MEASURE = wordset(
    """
    rate rates ratio score scores time times margin margins yield utilization utilisation
    accuracy coverage adoption productivity visibility performance morale retention
    occupancy turnover churn conversion throughput uptime availability compliance quality
    """
)

_VERDICT = wordset("low high poor weak slow bad inadequate insufficient excessive excess lagging")


def _opening_np(fact: str) -> str:
    words: list[str] = []
    for w in fact.split():
        if words and (w.lower() in _FUNCTION or base_form(w.lower())):
            break
        words.append(w.strip(",."))
    np_ = _case(words[:5]) if len(words) >= 2 else ""
    return "" if any(w.lower() in ("product", "feature") for w in words[:2]) else np_


def subject_topic(
    store: GraphStore,
    topic_node: str,
    nodes: list[str],
    notes: str,
    path: tuple[str, ...] | list[str] = (),
) -> str:
    """The reader's problem as a clean noun phrase: the title of the fact the email
    leads with (the one that bears on the notes when there are notes), else the
    problem the walk reaches the product from, else a fact's opening noun phrase.
    Never a product node or a schema slot ("Product Feature"): the subject names the
    reader's problem, not the seller's catalogue. Words cut from the notes read
    garbled ("Thoughts on main street?"), so the notes choose the fact, and the graph
    names it."""
    order = [topic_node, *nodes, *reversed([n for n in path if n not in nodes])]
    for node in order:
        topic = _readable(node) if node in store or node == topic_node else ""
        if topic:
            return topic
    for node in order:
        if node in store and not is_product_feature(node) and node != CUSTOMER_JOB:
            topic = _opening_np(customer_fact(store.content(node), 12).text)
            if topic:
                return topic
    # Nothing of the walk is told: the email is about what the product offers, so the
    # subject says that ("UI for feedback and model evaluation"), not a vague "your
    # priorities" a reader takes for bait.
    for node in order:
        if node in store and is_product_feature(node):
            fact = customer_fact(store.content(node), 16, True)
            text = fact.text
            if fact.kind == "noun":  # "Waffles and Bagels, featuring a UI for ..."
                text = named_product(text)[0] or text
            topic = _offered_np(text)
            if topic:
                return topic
    return "your priorities"


_DETERMINERS = frozenset({"a", "an", "the", "our", "its", "their", "each", "every", "any"})
_NUMBER_WORDS = wordset("one two three four five six seven eight nine ten several many few")
_NP_STOP = frozenset({"so", "that", "which", "who", "to", "when", "where", "while", "because",
                      "more", "less", "than", "over", "under", "most", "up", "about"})  # fmt: skip


def _offered_np(fact: str) -> str:
    """The object of a product sentence's first verb, as a noun phrase ("Weave has a
    UI for feedback and model evaluation" -> "UI for feedback and model evaluation")."""
    words = fact.split()
    for i, w in enumerate(words[:-1]):
        low = w.lower()
        if i == 0 or not (low in ("has", "offers", "provides", "gives") or base_form(low)):
            continue
        rest = words[i + 1 :]
        while rest and rest[0].lower() in _DETERMINERS:
            rest = rest[1:]
        if not rest or rest[0].lower() in _FUNCTION:
            return ""  # "sits on top of ...": the verb takes no object to name
        np_: list[str] = []
        for r in rest:
            bare = r.strip(",.;:")
            low_r = bare.lower()
            if low_r in _NP_STOP or low_r in AUX or (np_ and low_r.endswith("ed")):
                break  # the next clause ("and retrains", "is", "trained on ...")
            if not (_content(bare) or bare.isupper()) and low_r not in _NP_GLUE:
                break  # "by likely responsiveness", "over 40 PMS": not the offer's name
            np_.append(bare)
            if bare != r or len(np_) == 6:
                break  # a comma ends the phrase
        while np_ and not _content(np_[-1]):
            np_.pop()
        if not np_ or np_[0].lower() in _NUMBER_WORDS or np_[0][:1].isdigit():
            return ""  # "two ways ...": a quantity, not what is offered
        return _case(np_) if len(np_) >= 2 else ""
    return ""
