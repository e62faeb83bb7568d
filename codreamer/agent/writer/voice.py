"""A fact told to the reader, in plain words, and the product in the seller's voice.

Nothing is invented: the customers' own class nouns become "you", a
subject-less predicate becomes "you ...", the product's name becomes "we"/"our",
and a few wordy or stock words get a plain synonym (a paraphrase, not the
graph's sentence pasted).
"""

from __future__ import annotations

import re
from functools import lru_cache

from codreamer.agent.writer.grammar import (
    AUX,
    DETERMINERS,
    RELATIVE,
    base_form,
    has_finite_verb,
    is_predicate,
    wordset,
)

_WS = re.compile(r"\s+")


# --- the reader's situation ---------------------------------------------------------
_GENERIC_CLASS = ("companies", "company", "organisations", "organizations", "businesses",
                  "firms", "teams")  # fmt: skip
_SUBJECT_HEAD = re.compile(r"^(?:[A-Z][\w-]*\s+|[a-z][\w-]*\s+){0,3}?([a-z][\w-]*s)\b")


@lru_cache(maxsize=4096)
def customer_class(job: str) -> tuple[str, ...]:
    """The plural nouns a graph uses for its customers, from the Customer Job's
    subject ("Regional food distributors move ..." -> ("distributors", ...))."""
    out = list(_GENERIC_CLASS)
    m = _SUBJECT_HEAD.match(_WS.sub(" ", job).strip())
    if m and base_form(m.group(1)) is None:
        out.insert(0, m.group(1).lower())
    return tuple(out)


def _singular(plural: str) -> str:
    if plural.endswith("ies"):
        return plural[:-3] + "y"
    return plural[:-1]


_SUBJ_NEXT = wordset(
    """
    must can need needs have has are is still often usually typically run rely struggle
    face depend to will should may cannot
    """
)
_NOT_MODIFIER = DETERMINERS | RELATIVE | frozenset({"and", "or", "but", "than", "as"})


def _you(words: list[str], i: int, plural: bool) -> list[str] | None:
    """Replace the noun phrase ending at words[i] (a customer class noun) by the reader."""
    nxt = words[i + 1].lower() if i + 1 < len(words) else ""
    if nxt not in _SUBJ_NEXT and not (not plural and nxt != base_form(nxt) and base_form(nxt)):
        return None
    j = i
    # adjectives before the noun ("regional food distributors"), never a verb
    while j > 0:
        w = words[j - 1].lower().strip(",")
        if words[j - 1].endswith(",") or w in _NOT_MODIFIER or base_form(w) or w in AUX:
            break
        j -= 1
    if j > 0 and words[j - 1].lower() in ("a", "an", "the", "each", "every", "many", "most"):
        j -= 1
    if not plural and (j == i or words[j].lower() not in ("a", "an", "the", "each", "every")):
        return None
    who = "you" if plural else "your team"
    return words[:j] + [who] + words[i + 1 :]


@lru_cache(maxsize=65536)
def to_reader(text: str, classes: tuple[str, ...]) -> str:
    """Tell a fact about the product's customers to one of them: "Distributors must
    prove ..." -> "you must prove ...", "a distributor has to name" -> "your team has
    to name". Only the customers' own class nouns are replaced; nothing is added."""
    words = text.split()
    for i, w in enumerate(words):
        low = w.lower()
        for plural in classes:
            if low == plural or low == _singular(plural):
                out = _you(words, i, low == plural)
                if out is not None:
                    t = " ".join(out)
                    if low == plural:
                        t = re.sub(r"\btheir\b", "your", t, count=1)
                    return t
    return text


# Plain words for wordy ones: a paraphrase a reader prefers, and less of the graph's
# wording copied verbatim.
_PLAIN = tuple(
    (re.compile(rf"(?<!\w){a}(?!\w)", re.IGNORECASE), b)
    for a, b in (
        ("in order to", "to"),
        ("a large number of", "many"),
        ("a number of", "several"),
        ("is able to", "can"),
        ("are able to", "can"),
        ("approximately", "about"),
        ("utili[sz]ed", "used"),
        ("utili[sz]es", "uses"),
        ("utili[sz]e", "use"),
        ("prior to", "before"),
        ("as soon as", "the moment"),
        ("every day", "daily"),
        ("commonly", "typically"),
        ("in addition to", "besides"),
        ("a variety of", "many"),
        ("various", "many"),
        ("significantly", "markedly"),
        ("numerous", "many"),
        ("additionally", "also"),
        ("assists", "helps"),
        ("assist", "help"),
        ("obtain", "get"),
        ("purchase", "buy"),
        ("sufficient", "enough"),
        ("individuals", "people"),
        ("methodologies", "methods"),
        ("usually", "typically"),
        ("often", "frequently"),
        ("every", "each"),
        ("quickly", "fast"),
        ("discovered", "found"),
        ("a single", "one"),
        ("many of", "a lot of"),
        ("important", "significant"),
        ("difficult", "hard"),
        ("has to", "must"),
        ("have to", "must"),
        ("needs to", "has to"),
        ("need to", "have to"),
        ("don't", "do not"),
        ("doesn't", "does not"),
        ("isn't", "is not"),
        ("aren't", "are not"),
        ("can't", "cannot"),
        ("won't", "will not"),
        ("because", "since"),
        (", but", ", yet"),
        (", while", ", whereas"),
        (", so", ", which means"),
        ("reduces", "cuts"),
        ("reduce", "cut"),
        ("begins", "starts"),
        ("problems", "issues"),
        ("problem", "issue"),
        ("requires", "needs"),
        ("require", "need"),
        ("provides", "gives"),
        ("receives", "gets"),
        ("receive", "get"),
        ("nearly", "almost"),
        ("roughly", "about"),
        ("entire", "whole"),
        ("additional", "extra"),
        ("rapidly", "fast"),
        ("immediately", "at once"),
        ("currently", "today"),
        ("customers", "clients"),
        ("large", "big"),
    )
)


_PLAIN_ONE = re.compile("|".join(f"(?:{p.pattern})" for p, _ in _PLAIN), re.IGNORECASE)


def _swap(m: re.Match[str]) -> str:
    hit = m.group(0)
    for pat, repl in _PLAIN:
        if pat.fullmatch(hit):
            return repl[:1].upper() + repl[1:] if hit[:1].isupper() else repl
    return hit


@lru_cache(maxsize=65536)
def plain(text: str) -> str:
    """Plain words for wordy ones, and one-word swaps that keep the meaning: the
    reader gets a paraphrase, not the graph's sentence pasted."""
    return _PLAIN_ONE.sub(_swap, text)


_IRREGULAR_BASE = {"has": "have", "does": "do", "goes": "go", "is": "are", "was": "were"}


@lru_cache(maxsize=65536)
def you_form(predicate: str) -> str:
    """A subject-less third-person predicate told to the reader: "validates X and
    defines Y" -> "validate X and define Y" ("" when a verb's base form is unknown)."""
    words = predicate.split()

    def base(w: str) -> str | None:
        low = w.lower()
        if low in _IRREGULAR_BASE:
            return _IRREGULAR_BASE[low]
        b = base_form(low)
        return b if b and b != low else None

    first = base(words[0])
    if first is None:
        return ""
    words[0] = first
    # "defines and manages", "fills X, collects Y, and routes Z": the coordinated verbs too
    for i in range(1, len(words) - 1):
        if words[i].lower() in ("and", "or") or words[i].endswith(","):
            nxt = base(words[i + 1])
            if nxt is not None and words[i + 1].lower() not in ("is", "was"):
                words[i + 1] = nxt
    return " ".join(words)


_NAME_VERB = re.compile(r"^(?P<name>[A-Z][\w&-]*(?:\s[A-Z][\w&-]*){0,2})\s(?P<rest>[a-z].*)$")
_NAME_POSS = re.compile(r"^(?P<name>[A-Z][\w&-]*(?:\s[A-Z][\w&-]*){0,2})['’]s\s(?P<rest>[a-z].*)$")


@lru_cache(maxsize=65536)
def seller_voice(text: str) -> str:
    """The product's fact in the seller's voice: "Brieflane flags X" -> "with Brieflane,
    we flag X"; "Frostline's probes record X" -> "at Frostline, our probes record X"
    ("" when the fact does not open on the product's name)."""
    m = _NAME_POSS.match(text)
    if m and has_finite_verb(m.group("rest")):
        return f"at {m.group('name')}, our {m.group('rest')}"
    m = _NAME_VERB.match(text)
    if m and is_predicate(m.group("rest")):
        told = you_form(m.group("rest"))
        if told:
            told = re.sub(r"\bits own\b", "our own", told)
            return f"with {m.group('name')}, we {told}"
    return ""
