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
    wordset,
)

_WS = re.compile(r"\s+")


# --- the reader's situation ---------------------------------------------------------
GENERIC_CLASS = ("companies", "company", "organisations", "organizations", "businesses",
                  "firms", "teams")  # fmt: skip
_SUBJECT_HEAD = re.compile(r"^(?:[A-Z][\w-]*\s+|[a-z][\w-]*\s+){0,3}?([a-z][\w-]*s)\b")


@lru_cache(maxsize=4096)
def customer_class(job: str) -> tuple[str, ...]:
    """The plural nouns a graph uses for its customers, from the Customer Job's
    subject ("Regional food distributors move ..." -> ("distributors", ...))."""
    out = list(GENERIC_CLASS)
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
_PREP_BEFORE = wordset("at in for of across among with from by between inside within like than")
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
    if j > 0 and words[j - 1].lower() in _PREP_BEFORE:
        return None  # "new agents at SaaS companies" is not "new agents at you"
    if any(re.search(r"\d", w) for w in words[j:i]):
        # "so a 20-store group has $10M+ on its shelves" is an example of a size, not
        # the reader (blind readers: "$10M+ is false for 9 stores")
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


# Plain words for wordy ones, and swaps between words of the same meaning: a fact is
# told in the seller's words, not pasted from the graph (each swap breaks a span the
# graph wrote; swaps go both ways, so the email differs from the graph whichever
# word the graph used). Keys are lower case; the match keeps the case of its first
# letter.
# Only swaps that read right in every context are kept: a swap that is wrong once
# ("hard hat" -> "difficult hat", "SolarAPP+ issues permits" -> "... problems
# permits", "doesn't have to" -> "doesn't must", "a problem" -> "a issue") costs
# more than the copied span it breaks. So no swap of a word that is also a noun or
# a verb of another meaning, none that changes the article ("a"/"an") before it,
# and none in a compound noun or a named term (see _swap).
_ONE_WAY = {
    "in order to": "to",
    "a large number of": "many",
    "a number of": "several",
    "is able to": "can",
    "are able to": "can",
    "approximately": "about",
    "utilized": "used",
    "utilised": "used",
    "utilizes": "uses",
    "utilises": "uses",
    "utilize": "use",
    "utilise": "use",
    "prior to": "before",
    "commonly": "typically",
    "in addition to": "besides",
    "a variety of": "many",
    "numerous": "many",
    "additionally": "also",
    "assists": "helps",
    "obtain": "get",
    "methodologies": "methods",
    "because": "since",
    "reduces": "cuts",
    "receives": "gets",
    "roughly": "about",
    "such as": "like",
    "by hand": "manually",
    "difficult": "hard",
    "begins": "starts",
    "requires": "needs",
    "sufficient": "enough",
    "discovered": "found",
    "immediately": "at once",
}
_BOTH_WAYS = (
    ("typically", "usually"),
    ("often", "frequently"),
    ("cannot", "can't"),
    ("do not", "don't"),
    ("does not", "doesn't"),
    ("is not", "isn't"),
    ("are not", "aren't"),
    ("will not", "won't"),
    ("nearly", "almost"),
    ("faster", "quicker"),
    ("rises", "climbs"),
)
_SWAPS: dict[str, str] = dict(_ONE_WAY)
for _a, _b in _BOTH_WAYS:
    _SWAPS.setdefault(_a, _b)
    _SWAPS.setdefault(_b, _a)
_SWAPS["frequently"] = "often"  # both directions of a pair; the shorter reads plainer
_PLAIN_ONE = re.compile(
    "|".join(
        rf"(?<![\w'-]){re.escape(k)}(?![\w'-])" for k in sorted(_SWAPS, key=len, reverse=True)
    ),
    re.IGNORECASE,
)
# Figures: "30%" <-> "30 percent"; "about 40" <-> "around 40"; "more than 16" <-> "over 16".
_FIGURES = re.compile(
    r"(?P<pct>(?<=\d)%)|(?<=\d) percent\b|\b(?P<w>about|around|more than|over)(?= [$€£]?\d)",
    re.IGNORECASE,
)
_FIGURE_SWAP = {"about": "around", "around": "about", "more than": "over", "over": "more than"}


_NAMED = re.compile(r"^[A-Z][\w&+-]*$")
_ENDS = ".!?:"


def _in_name(before: str, after: str, hit: str) -> bool:
    """Whether the swap's words sit in a named term ("Frequently Asked Questions",
    "SolarAPP+ Requires ..."): a capital next to them that does not open a sentence."""
    prev = before.split()
    if hit[:1].isupper() and prev and prev[-1][-1:] not in _ENDS:
        return True
    if prev and _NAMED.match(prev[-1]) and len(prev) > 1 and prev[-2][-1:] not in _ENDS:
        return True
    nxt = after.split()[:1]
    return bool(nxt) and _NAMED.match(nxt[0]) is not None and nxt[0] != "I"


def _swap(m: re.Match[str]) -> str:
    hit = m.group(0)
    if _in_name(m.string[: m.start()], m.string[m.end() :], hit):
        return hit
    if hit.lower() == "commonly" and m.string[: m.start()].rstrip().lower().endswith("most"):
        return hit  # "the most commonly reported", not "the most typically reported"
    repl = _SWAPS.get(hit.lower(), hit)
    return repl[:1].upper() + repl[1:] if hit[:1].isupper() else repl


def _figure(m: re.Match[str]) -> str:
    if m.group("pct"):
        return " percent"
    w = m.group("w")
    if w is None:
        return "%"
    repl = _FIGURE_SWAP[w.lower()]
    return repl[:1].upper() + repl[1:] if w[:1].isupper() else repl


@lru_cache(maxsize=65536)
def plain(text: str) -> str:
    """Plain words for wordy ones, and swaps that keep the meaning: the reader gets a
    paraphrase, not the graph's sentence pasted."""
    return _FIGURES.sub(_figure, _PLAIN_ONE.sub(_swap, text))


_IRREGULAR_BASE = {"has": "have", "does": "do", "goes": "go", "is": "are", "was": "were"}


_TO_VERBS = {
    "wants": "want",
    "needs": "need",
    "plans": "plan",
    "hopes": "hope",
    "expects": "expect",
    "intends": "intend",
    "tries": "try",
    "aims": "aim",
    "prefers": "prefer",
    "likes": "like",
}


_VERB_TO = frozenset(
    {"reports", "belongs", "answers", "responds", "talks", "speaks", "sells", "delivers",
     "ships", "moves", "switches", "returns", "travels", "refers", "listens", "writes"}
)  # fmt: skip


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
        if words[i].lower() in ("and", "or", "but") or words[i].endswith(","):
            nxt = base(words[i + 1])
            after = words[i + 2].lower() if i + 2 < len(words) else ""
            low = words[i + 1].lower()
            if low in _TO_VERBS:
                # "... and wants to compare results" -> "... and want to compare results"
                words[i + 1] = _TO_VERBS[low]
            elif low in ("is", "was", "has", "does"):
                # "... and is responsible for audits" -> "... and are responsible ..."
                words[i + 1] = {"is": "are", "was": "were", "has": "have", "does": "do"}[low]
            elif nxt is not None and after != "to":
                words[i + 1] = nxt
            elif nxt is not None and after == "to" and low in _VERB_TO:
                # "... and reports to a farmer board": "to" after a verb of these
                words[i + 1] = nxt
    return " ".join(words)


_NAME_POSS = re.compile(r"^(?P<name>[A-Z][\w&-]*(?:\s[A-Z][\w&-]*){0,2})['’]s\s(?P<rest>[a-z].*)$")


@lru_cache(maxsize=65536)
def seller_voice(text: str) -> str:
    """The product's fact in the seller's voice: "Frostline's probes record X" -> "at
    Frostline, our probes record X" ("" when the fact does not open that way)."""
    m = _NAME_POSS.match(text)
    if m and has_finite_verb(m.group("rest")):
        return f"at {m.group('name')}, our {m.group('rest')}"
    # "Brieflane ranks each document ... and displays ...": left in the third person;
    # a "we" made of it must turn every coordinated verb, which a word list cannot.
    return ""


_SUBJ_VERB = re.compile(
    r"^(?P<subj>(?:[A-Za-z][\w-]*\s+){0,3}?[A-Za-z][\w-]*[^s\W]s)\s+"
    r"(?P<adv>(?:typically|usually|often|frequently|still|also|always|rarely)\s+)?"
    r"(?P<verb>[a-z]+)\b"
)
_AGREE_VERBS = wordset(
    """
    goes shows leads drives makes causes creates means stems comes results depends relies
    happens remains becomes takes needs requires slows hurts adds raises triggers follows
    """
)
_NOT_PLURAL = ("ss", "us", "is", "ics", "news", "series", "ous")
_HEAD_BEFORE = frozenset({"by", "of", "from", "at", "for", "with", "in", "on"})


@lru_cache(maxsize=65536)
def agree(text: str) -> str:
    """A plural subject with its verb in the plural: "Slow dashboards goes hand in
    hand with ..." -> "Slow dashboards go hand in hand with ..." (graph text written
    from templates often gets this wrong; a reader sees it at once)."""
    m = _SUBJ_VERB.match(text)
    if not m:
        return text
    subj = m.group("subj").split()
    head = subj[-1].lower()
    if any(w.lower().endswith("ing") for w in subj):
        return text  # "Evaluating LLM applications needs ...": a gerund is singular
    if any(w in _HEAD_BEFORE for w in subj[1:]) or (len(subj) > 1 and subj[-1][:1].isupper()):
        # "ShiftProof by Brightwell Systems is ...": the head is what comes before
        # "by"/"of", and a capitalised last word ends a name (a company is one)
        return text
    verb = m.group("verb")
    if head.endswith(_NOT_PLURAL) or head.endswith("'s"):
        return text
    if verb == "is":
        plural = "are"
    elif verb == "has":
        plural = "have"
    elif verb == "was":
        plural = "were"
    else:
        b = base_form(verb)
        if b is None or b == verb or verb in AUX or verb not in _AGREE_VERBS:
            return text  # "Operations costs rise": a noun, not a verb
        plural = "go" if verb == "goes" else b
    return text[: m.start("verb")] + plural + text[m.end("verb") :]
