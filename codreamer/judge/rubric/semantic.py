"""Criteria read by meaning (DESIGN §4), with the sentence embeddings of `meaning`:

    relevance      the email's content fits what is known of the prospect: their
                   notes, or only their title, company, industry and stack. Measured
                   against the graph: how close the email comes to the node that
                   fits the prospect best, so it means the same on every graph.
    grounding      each cited fact is expressed, a paraphrase included
    subject fit    the subject is about the body (deception reads it)
    contradiction  a sentence about a cited fact that states other numbers, the
                   opposite polarity, or an invented customer or case study

Everything a graph contributes (its sentences and their vectors) is computed
once per graph and kept in `GraphVectors`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from codreamer.graph.schema import CUSTOMER_JOB, is_product_feature
from codreamer.judge.rubric.first_pass import any_of
from codreamer.judge.rubric.language import stem, stems
from codreamer.judge.rubric.meaning import embed, embed_parts, top_mean, unit
from codreamer.judge.rubric.words import CALENDAR_WORDS
from codreamer.models import Scenario

_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
# "99.9 percent" is "99.9%" (the writer says "percent"; read as a plain 99.9 it was
# taken for the fact's other plain figure, "20 languages", and called a contradiction)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:\s?%|\s?x\b|\s?per\s?cent\b)?")
_WORDNUM = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "half": "50%", "twice": "2x",
    "dozen": "12", "hundred": "100",
}  # fmt: skip
_WORDNUM_RX = re.compile(r"\b(" + "|".join(_WORDNUM) + r")\b")
_ANTONYMS = (
    ("increase", "decrease"), ("increases", "decreases"), ("increased", "decreased"),
    ("more", "less"), ("more", "fewer"), ("higher", "lower"), ("faster", "slower"),
    ("most", "few"), ("most", "least"), ("always", "never"), ("rise", "fall"),
    ("rises", "falls"), ("gain", "loss"), ("improve", "worsen"), ("improves", "worsens"),
    ("easy", "hard"), ("cheap", "expensive"), ("cheaper", "costlier"), ("early", "late"),
    ("earlier", "later"), ("longer", "shorter"), ("larger", "smaller"), ("many", "few"),
    ("majority", "minority"), ("strong", "weak"), ("accurate", "inaccurate"),
    ("reliable", "unreliable"), ("common", "rare"), ("frequent", "rare"),
    ("often", "rarely"), ("reduce", "increase"), ("reduces", "increases"),
    ("reduced", "increased"), ("lowers", "raises"), ("safe", "unsafe"),
    ("compliant", "non-compliant"), ("manual", "automatic"), ("manually", "automatically"),
    ("before", "after"), ("up", "down"), ("cuts", "raises"), ("cut", "raise"),
    ("rising", "falling"), ("growing", "shrinking"), ("above", "below"),
    ("slow", "fast"), ("costly", "cheap"), ("automated", "manual"), ("all", "none"),
    ("every", "no"), ("continuous", "periodic"), ("real-time", "daily"),
    ("instantly", "eventually"), ("live", "daily"),
)  # fmt: skip
_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in _ANTONYMS:
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)
_WORD = re.compile(r"[a-z][a-z'-]*")
# Quantity and frequency words fall in a class: a sentence about a cited fact that
# moves a quantity from one class to another ("most" -> "few", "every minute" ->
# "once an hour") says something else than the fact.
_HIGH = frozenset(
    [
        "most",
        "majority",
        "usually",
        "often",
        "always",
        "frequently",
        "commonly",
        "typically",
        "mostly",
    ]
)
_LOW = frozenset(["rarely", "seldom", "minority", "never", "hardly", "uncommon", "least", "barely"])
_FREQUENCY = re.compile(
    r"\b(?:every (?:minute|second|few (?:seconds|minutes))|in real[- ]time|real[- ]time|"
    r"live|instantly|continuously|(?:every|once an?|each|per) (?:hour|day|night|week|month|"
    r"quarter|year)|hourly|daily|nightly|weekly|monthly|quarterly|yearly|annually)\b"
)
_ANY_FREQUENCY = any_of(_FREQUENCY)
_DIGIT = re.compile(r"\d")  # what every figure pattern here needs (a fast scan)
_ASCII_DIGIT = re.compile(r"[0-9]")  # `\d` on an ASCII text, tested with a bitmap


def _has_digit(text: str) -> bool:
    return (_ASCII_DIGIT if text.isascii() else _DIGIT).search(text) is not None


_FREQ_RANK = {"second": 0, "minute": 1, "real": 1, "live": 1, "instantly": 0,
              "continuously": 1, "hour": 2, "hourly": 2, "day": 3, "daily": 3, "night": 3,
              "nightly": 3, "week": 4, "weekly": 4, "month": 5, "monthly": 5, "quarter": 6,
              "quarterly": 6, "year": 7, "yearly": 7, "annually": 7}  # fmt: skip


_NEGATED = re.compile(
    r"\b(?:doesn'?t|does not|don'?t|do not|never|can'?t|cannot|won'?t|will not|isn'?t|"
    r"aren'?t|is not|are not|no longer|not|without|no)\s+(?:(?:even|really|actually|yet|any|"
    r"a|an|the|have|need to|try to|be)\s+)?([a-z][a-z-]{2,})"
)
_ANY_NEGATED = any_of(_NEGATED)
_NEG_WORDS = frozenset(
    ["not", "no", "never", "without", "cannot", "doesn't", "don't", "isn't", "aren't",
     "won't", "can't", "doesnt", "dont", "isnt", "arent", "wont", "cant", "nor", "none"]
)  # fmt: skip


def _negates_fact(sent: str, fact: _Fact) -> str | None:
    """A word the sentence negates ("doesn't rewrite", "no UI") that the fact states
    without a negation nearby: the sentence denies what the fact says."""
    low = sent.lower()
    if not _ANY_NEGATED.found(low):  # most sentences negate nothing
        return None
    fwords = fact.split
    fstems = fact.stems
    for m in _NEGATED.finditer(low):
        w = stem(m.group(1))
        i = fstems.get(w)
        if i is None or len(w) < 3:
            continue
        if any(x.strip(".,;:") in _NEG_WORDS for x in fwords[max(0, i - 3) : i]):
            continue
        return m.group(0)
    return None


def _frequencies(text: str) -> set[int]:
    out: set[int] = set()
    if not _ANY_FREQUENCY.found(text):  # most sentences name no frequency
        return out
    for m in _FREQUENCY.finditer(text):
        for w, r in _FREQ_RANK.items():
            if w in m.group(0):
                out.add(r)
                break
    return out


_PROOF = re.compile(
    r"\b(?:helped|helping|worked with|work with|customers? (?:like|such as|including)|"
    r"clients? (?:like|such as|including)|teams? (?:like|at)|companies (?:like|such as)|"
    r"case study (?:with|from|of)|just like|for example,?|for instance,?|recently,?) "
    r"((?:the )?[A-Z][\w&'-]+(?: [A-Z][\w&'-]+){0,2})"
)
_RESULT = re.compile(
    r"\b(?:cut|reduced|saved|increased|boosted|doubled|tripled|grew|lowered|slashed|"
    r"improved|dropped)\b[^.!?]{0,40}?\b(?:by )?\d+(?:\.\d+)?\s?(?:%|percent|x)"
)
_PROOF_OR_RESULT = any_of(_PROOF, _RESULT)

# Social proof: other customers' results, ratings, awards, rankings, testimonials,
# "trusted by hundreds". Each is a claim the graph must make for the email to make it.
_SOCIAL_PROOF = re.compile(
    r"\b(?:(?:our|other|similar|many|most|some) (?:customers|clients|users|teams|firms|"
    r"companies|carriers|utilities|hospitals|clinics|hotels|contractors|installers|"
    r"warehouses|practices)|(?:customers|clients|users|teams|firms|companies|carriers|"
    r"utilities|hospitals|clinics|hotels|contractors) (?:using|on|with|that use|who use|"
    r"we work with)|one of our (?:customers|clients|users)|(?:a|one) (?:customer|client) "
    r"of ours)\b[^.!?]{0,60}?\b(?:cut|cuts|reduced|reduce|saw|see|sees|found|find|finds|"
    r"recover\w*|saved|save|doubled|halved|fell|dropped|improved|increased|paid for|"
    r"report\w*|got|get|went from)\b|"
    r"\b(?:in|from) (?:a|our|one) (?:recent )?pilot (?:with|at|for)\b|case study|"
    r"success stor(?:y|ies)|\bas one [\w -]{2,30} (?:put it|said|told (?:us|me))|"
    r"(?:said|says|told us) (?:the|a|one|their) (?:[\w-]+ ){0,3}(?:manager|director|ceo|cfo|"
    r"coo|cio|cto|vp|head|lead|owner|chief)\b|"
    r"\brated \d(?:\.\d)? (?:out of|/) ?(?:5|five|10|ten)\b|\b(?:on|in|by) (?:g2|capterra|"
    r"gartner|forrester|trustpilot|idc)\b|award[- ]winning|(?:won|received|earned) (?:an? |the )"
    r"?(?:[\w-]+ ){0,3}award|named (?:a|the) (?:leader|top|best)|top[- ]rated|"
    r"\btrusted by|\bused by (?:more than|over|\d)|(?:hundreds|thousands|dozens) of "
    r"(?:teams|customers|clients|companies|firms|utilities|hospitals|carriers|users)|"
    # Rankings of who buys, and endorsements: "7 of the 10 largest utilities run us",
    # "the committee cited us as a reference".
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|half|most) of the (?:\d+ |ten |"
    r"twenty |fifty |hundred )?(?:top|largest|biggest|leading)\b|"
    r"\b(?:cited|named|recogni[sz]ed|ranked|listed|featured|endorsed|certified) us\b"
)
_ANY_SOCIAL_PROOF = any_of(_SOCIAL_PROOF)
SAME_TOPIC = 0.5  # cosine above which an email sentence speaks of a node sentence
SAME_WORDS = 0.3  # ...and the share of content words they share before polarity counts
MEASURE_WORDS = 0.5  # share of content words a sentence shares with a fact to misquote it
EXPRESSED = 0.42  # cosine above which a cited node counts as expressed


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text.strip()) if len(s.split()) >= 3]


def numbers(text: str, words: bool = True) -> set[str]:
    low = text.lower()
    # A figure needs a digit: a text without one (most sentences) skips the scan.
    figures = _NUMBER.findall(low) if _has_digit(low) else []
    out = {n.replace(",", "").replace(" ", "").replace("percent", "%") for n in figures}
    if words:
        out.update(_WORDNUM[w] for w in _WORDNUM_RX.findall(low))
    return out


# A quantity with its unit ("every two hours", "within 100 meters"): a fact's
# "two minutes" told as "two hours" is a contradiction the bare numbers miss.
_MEASURE = re.compile(
    r"\b(\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
    r"a few|few|several|a couple of)\s+(second|minute|hour|day|week|month|year|met(?:er|re)|"
    r"kilomet(?:er|re)|km|mile|f(?:oo|ee)t)s?\b"
)
_MEASURE_DIM = {"second": "time", "minute": "time", "hour": "time", "day": "time",
                "week": "time", "month": "time", "year": "time", "m": "length",
                "km": "length", "mile": "length", "ft": "length"}  # fmt: skip
_UNIT_NAME = {"meter": "m", "metre": "m", "kilometer": "km", "kilometre": "km",
              "foot": "ft", "feet": "ft"}  # fmt: skip
_FEW = frozenset(["a few", "few", "several", "a couple of"])


# Every match of `_MEASURE` holds one of these (its unit, "kilometer" holding "meter"):
# a text with none of them (most sentences) skips the scan, which `re` would enter at
# every character to test the leading `\b`.
_UNIT_STEMS = ("second", "minute", "hour", "day", "week", "month", "year", "meter", "metre",
               "km", "mile", "foot", "feet")  # fmt: skip


def measures(low: str) -> frozenset[tuple[str, str]]:
    """(amount, unit) pairs of a lower-case text; "a few" and its kin are one amount."""
    if not any(u in low for u in _UNIT_STEMS):
        return frozenset()
    out = set()
    for n, u in _MEASURE.findall(low):
        amount = "few" if n in _FEW else _WORDNUM.get(n, n.replace(",", ""))
        out.add((amount, _UNIT_NAME.get(u, u)))
    return frozenset(out)


def _unit(n: str) -> str:
    return "%" if n.endswith("%") else "x" if n.endswith("x") else ""


_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "with",
        "by",
        "at",
        "from",
        "as",
        "your",
        "you",
        "we",
        "our",
        "they",
        "their",
        "i",
        "my",
        "so",
        "than",
        "then",
        "there",
        "which",
        "who",
        "what",
        "when",
        "how",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
    ]
)


@dataclass(frozen=True, slots=True)
class _Fact:
    numbers: set[str]  # figures the sentence states (no number words)
    words: frozenset[str]  # its words, stop words left out
    frequencies: set[int]  # how-often classes it names
    split: list[str]  # its lower-case words, as `_negates_fact` reads them
    stems: dict[str, int]  # each word's stem -> its last position
    measures: frozenset[tuple[str, str]]  # quantities with a unit it states


@dataclass
class GraphVectors:
    """A graph's sentences and their vectors, made once per graph."""

    node_ids: list[str]
    node_vecs: np.ndarray  # one row per node (its content)
    sentences: dict[str, list[str]]  # node -> its content sentences
    sentence_vecs: dict[str, np.ndarray]
    numbers: dict[str, set[str]]  # node -> numbers its text states
    text: str  # all node text, lower case (names an email may use)
    all_numbers: set[str]  # every number the graph states
    all_measures: frozenset[tuple[str, str]] = frozenset()  # every quantity with a unit
    _stacks: dict[tuple[str, ...], tuple[list[tuple[str, str]], np.ndarray]] = field(
        default_factory=dict, repr=False
    )
    _reach: dict[bytes, tuple[float, float]] = field(default_factory=dict, repr=False)
    _fits: dict[bytes, dict[str, float]] = field(default_factory=dict, repr=False)
    _facts: dict[str, _Fact] = field(default_factory=dict, repr=False)
    _measured: dict[tuple[str, ...], list[str]] = field(default_factory=dict, repr=False)
    features: list[str] = field(init=False, repr=False)  # Product Feature nodes, in order
    # Each feature's problem nodes: those with an edge into it (not the Customer Job,
    # not another feature). Set by the judge from its graph; empty without one.
    feeders: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.features = [i for i in self.node_ids if is_product_feature(i)]

    def fact(self, sentence: str) -> _Fact:
        """What contradiction reads of a node's sentence, once per graph."""
        hit = self._facts.get(sentence)
        if hit is None:
            low = sentence.lower()
            words = frozenset(w for w in _WORD.findall(low) if w not in _STOP)
            fwords = low.split()
            hit = self._facts[sentence] = _Fact(
                numbers(sentence, words=False), words, _frequencies(low), fwords,
                {stem(w.strip(".,;:()\"'")): i for i, w in enumerate(fwords)}, measures(low),
            )  # fmt: skip
        return hit

    def measured(self, facts: tuple[str, ...]) -> list[str]:
        """The sentences of these nodes that state a quantity with a unit, made once
        per citation set (as `stacked`)."""
        hit = self._measured.get(facts)
        if hit is None:
            hit = [s for c in facts for s in self.sentences[c] if self.fact(s).measures]
            if len(self._measured) > 20_000:
                self._measured.clear()
            self._measured[facts] = hit
        return hit

    def stacked(self, facts: tuple[str, ...]) -> tuple[list[tuple[str, str]], np.ndarray]:
        """The cited facts' sentences and their vectors in one matrix, made once per
        citation set (a policy cites the same walks again and again)."""
        hit = self._stacks.get(facts)
        if hit is None:
            sents = [(c, s) for c in facts for s in self.sentences[c]]
            hit = (sents, np.vstack([self.sentence_vecs[c] for c in facts]))
            if len(self._stacks) > 20_000:
                self._stacks.clear()
            self._stacks[facts] = hit
        return hit

    def reach(self, profile: np.ndarray) -> tuple[float, float]:
        """(the best, the median) cosine of the graph's nodes with a prospect's profile:
        what an email could reach, once per prospect."""
        key = profile.tobytes()
        hit = self._reach.get(key)
        if hit is None:
            node = self.node_vecs @ profile
            hit = (float(node.max()), float(np.median(node)))
            if len(self._reach) > 4096:
                self._reach.clear()
            self._reach[key] = hit
        return hit

    def feature_fit(self, profile: np.ndarray) -> dict[str, float]:
        """How well each Product Feature fits a prospect's notes: as well as the feature
        or the problem it answers (`feeders`) fits them, whichever fits better. Notes
        describe a pain, so they match the problem node that leads to a feature far
        better than the feature's own text (on the tuning graphs' system emails,
        Spearman with the readers 0.26 -> 0.47 over 212 emails). Once per prospect."""
        key = profile.tobytes()
        hit = self._fits.get(key)
        if hit is None:
            idx = {n: k for k, n in enumerate(self.node_ids)}

            def match(n: str) -> float:
                return float(self.node_vecs[idx[n]] @ profile)

            hit = {
                f: max([match(f)] + [match(p) for p in self.feeders.get(f, ())])
                for f in self.features
            }
            if len(self._fits) > 4096:
                self._fits.clear()
            self._fits[key] = hit
        return hit

    @classmethod
    def of(cls, contents: dict[str, str]) -> GraphVectors:
        ids = list(contents)
        vecs = embed([contents[i] for i in ids])
        sents = {i: split_sentences(contents[i]) or [contents[i]] for i in ids}
        flat = [s for i in ids for s in sents[i]]
        flat_vecs = embed(flat)
        sv: dict[str, np.ndarray] = {}
        k = 0
        for i in ids:
            n = len(sents[i])
            sv[i] = flat_vecs[k : k + n]
            k += n
        nums = {i: numbers(contents[i]) for i in ids}
        text = " ".join(f"{i} {contents[i]}" for i in ids).lower()
        every = set().union(*(numbers(contents[i], words=False) for i in ids)) if ids else set()
        return cls(ids, vecs, sents, sv, nums, text, every, measures(text))


def profile_text(scenario: Scenario) -> tuple[str, str]:
    """(what is known of the prospect as text, 'notes' | 'profile' | '')."""
    p = scenario.prospect
    notes = (p.notes or "").strip()
    if notes:
        return notes, "notes"
    parts = []
    if p.title:
        parts.append(p.title)
    if p.industry:
        parts.append(f"in {p.industry}")
    if p.tech_stack:
        parts.append("using " + ", ".join(p.tech_stack))
    if len(parts) == 0:
        return "", ""
    return " ".join(parts), "profile"


@dataclass
class EmailVectors:
    sentences: list[str]
    vecs: np.ndarray
    subject: np.ndarray | None
    body: np.ndarray
    said: dict[str, float] | None = None  # `features_said`, once per email
    nearest: dict[str, float] = field(default_factory=dict)  # `closest`, once per node


def closest(ev: EmailVectors, gv: GraphVectors, node: str) -> float:
    """The highest cosine of a node's sentences with the email's: worked out once per
    email and node for grounding (the cited nodes) and product (the features)."""
    hit = ev.nearest.get(node)
    if hit is None:
        hit = ev.nearest[node] = float((gv.sentence_vecs[node] @ ev.vecs.T).max())
    return hit


def features_said(ev: EmailVectors, gv: GraphVectors) -> dict[str, float]:
    """How closely the email speaks of each Product Feature (its closest sentence),
    worked out once for product and solution_fit."""
    if ev.said is None:
        ev.said = {f: closest(ev, gv, f) for f in gv.features}
    return ev.said


def email_vectors(subject: str, prose: list[str]) -> EmailVectors:
    n = len(prose)
    units, sums = embed_parts([*prose, subject])
    body = unit(sums[:n].sum(axis=0))  # the embedding of the prose joined by spaces
    return EmailVectors(prose, units[:n], units[n] if subject.strip() else None, body)


def relevance(
    ev: EmailVectors, profile: np.ndarray, kind: str, gv: GraphVectors | None
) -> tuple[float, str]:
    """How close the email's best sentences come to the prospect, against how close
    the graph's nodes come (the best node is what an email could reach)."""
    if ev.vecs.shape[0] == 0:
        return 0.0, "no prose to relate to the prospect"
    s = top_mean(ev.vecs @ profile, 2)
    if gv is not None and len(gv.node_ids) > 1:
        hi, lo = gv.reach(profile)
        span = max(hi - lo, 0.05)
        score = (s - lo) / span * 0.5 + 0.5
    else:
        score = s / 0.35
    score = min(1.0, max(0.0, score))
    what = "their notes" if kind == "notes" else "their role and industry"
    return score, f"fits {what} by meaning ({score:.2f}, cosine {s:.2f})"


def grounding(ev: EmailVectors, cited: list[str], gv: GraphVectors) -> tuple[float, list[str], str]:
    """(share of cited facts the body expresses by meaning, the missing ones, reason)."""
    facts = [c for c in cited if c in gv.sentence_vecs and c != CUSTOMER_JOB]
    if not facts:
        return 0.0, [], "no cited fact to express"
    if ev.vecs.shape[0] == 0:
        return 0.0, facts, "no prose"
    missing = []
    for c in facts:
        if closest(ev, gv, c) < EXPRESSED:
            missing.append(c)
    share = 1.0 - len(missing) / len(facts)
    why = f"{len(facts) - len(missing)}/{len(facts)} cited facts expressed by meaning"
    return share, missing, why


def subject_names_body(subject: set[str] | frozenset[str], told: set[str] | frozenset[str]) -> bool:
    """Whether the subject's own words (its concepts, less the reader's name and
    company and the words that frame a subject: `subject_concepts`) name something
    the email tells: a concept of its prose or of the facts it cites. A topic of one
    or two words ("About cost") is too short for a sentence embedding to place (its
    cosine with a body all about a doubled cloud bill is 0.02), so what the words
    name is read first, and meaning only when they name nothing told."""
    return not subject.isdisjoint(told)


def subject_fit(ev: EmailVectors, gv: GraphVectors | None, profile: np.ndarray | None) -> float:
    """How much closer the subject is to this body than to an unrelated text: its
    cosine with the body, minus a floor (the typical cosine of unrelated texts).
    Below 0: not about the body."""
    if ev.subject is None or ev.vecs.shape[0] == 0:
        return 1.0
    s = max(float(ev.subject @ ev.body), float((ev.vecs @ ev.subject).max()))
    if profile is not None:
        s = max(s, float(ev.subject @ profile))
    return s - 0.12


def contradiction(
    ev: EmailVectors, cited: list[str], gv: GraphVectors, known: str, maybe_proof: bool = True
) -> tuple[float, str]:
    """Sentences that speak of a cited fact but state other numbers or the opposite;
    invented customers, case studies and results. `known`: lower-case text of
    everything the email may name without a citation (scenario, sender);
    `maybe_proof`: False when a shared first pass (`screens.screen`) found no social
    proof in the prose (its sentences, `ev.sentences`)."""
    found: list[tuple[str, float]] = []
    facts = [c for c in cited if c in gv.sentence_vecs]
    key = tuple(facts)
    known_numbers: set[str] | None = None
    if facts and ev.vecs.shape[0]:
        node_sents, mat = gv.stacked(key)
        sims = ev.vecs @ mat.T
        nearest = sims.argmax(axis=1).tolist()  # each row's first best, as argmax per row
        for i, sent in enumerate(ev.sentences):
            j = nearest[i]
            if sims[i, j] < SAME_TOPIC:
                continue
            node, fact = node_sents[j]
            known_fact = gv.fact(fact)
            # Numbers: a figure of the same kind (%, x, plain) that the fact states
            # otherwise and the graph nowhere states; small counts ("2 teams") are
            # not checked.
            f_nums = known_fact.numbers
            stated = numbers(sent, words=False) - f_nums - gv.all_numbers
            if stated and known_numbers is None:
                known_numbers = numbers(known)  # once per email, and only when needed
            # sorted: sets iterate in a per-process order, and the reason is written to
            # run files that resume byte-identically
            wrong = sorted(
                n
                for n in stated - (known_numbers or set())
                if any(_unit(n) == _unit(f) for f in f_nums) and (_unit(n) or len(n) >= 2)
            )
            if wrong:
                same = min(f for f in f_nums if _unit(f) == _unit(wrong[0]))
                found.append((f"says {wrong[0]} where the graph says {same} ({node[:30]})", 0.6))
                continue
            low = sent.lower()
            eset = {w for w in _WORD.findall(low) if w not in _STOP}
            fset = known_fact.words
            overlap = len(fset & eset) / max(1, min(len(fset), len(eset)))
            if overlap < SAME_WORDS and sims[i, j] < 0.6:
                continue
            absent = fset - eset  # the fact's words the sentence does not use
            # A sentence holding both poles ("is rarely one big mistake; it's usually
            # clusters left running") sets one thing against another: a contrast, not
            # the fact turned around.
            flips = [
                w
                for w in eset - fset
                if (o := _OPPOSITE.get(w)) is not None
                and o & absent
                and not o & eset
                and not (w in _LOW and eset & _HIGH or w in _HIGH and eset & _LOW)
            ]
            if overlap < SAME_WORDS:
                flips = []
            elif not flips and (
                eset & _HIGH
                and fset & _LOW
                and not eset & _LOW
                or eset & _LOW
                and fset & _HIGH
                and not eset & _HIGH
            ):
                flips = sorted(eset & (_HIGH | _LOW))
            ef, ff = _frequencies(low), known_fact.frequencies
            if not flips and ef and ff and not ef & ff:
                flips = ["how often"]
            # A denial is read only against what the product does: elsewhere a
            # paraphrase negates freely ("clients no longer pay" for "refuse to pay").
            if not flips and is_product_feature(node):
                neg = _negates_fact(sent, known_fact)
                flips = [neg] if neg is not None else []
            # Negation alone is not read: a paraphrase often negates ("without anyone
            # babysitting the cache"), and one sentence cannot tell the two apart.
            if flips:
                found.append((f"states the opposite ({flips[0]!r}) of {node[:30]!r}", 0.6))
    if facts:
        clash = _measure_clash(ev.sentences, gv.measured(key), gv, known)
        if clash:
            found.append((clash, 0.6))
    body = " ".join(ev.sentences)
    # Most emails name no customer and state no result: one first pass for both.
    claimed = _PROOF_OR_RESULT.found(body)
    names = {m.group(1) for m in _PROOF.finditer(body)} if claimed else set()
    invented = [n for n in names if n.lower().removeprefix("the ") not in gv.text
                and n.lower() not in known and n.split()[0].lower() not in _NOT_NAMES]  # fmt: skip
    if invented:
        found.append((f"invented customer or case study {invented[0]!r}", 0.6))
    elif unknown := _unknown_named_proof(ev.sentences, gv.text, known):
        found.append((f"names {unknown[0]!r}, which nothing it draws on mentions, "
                      "beside a result", 0.6))  # fmt: skip
    results = [m.group(0) for m in _RESULT.finditer(body)] if claimed else []
    # a result the prospect's own notes state ("your remake rate doubled to about 9%")
    # is theirs, told back, not a claim of the seller's
    given = gv.all_numbers | (numbers(known) if results else set())
    unsupported = [r for r in results if not (numbers(r, words=False) & given)]
    if unsupported:
        found.append((f"a result the graph does not state {unsupported[0][:40]!r}", 0.5))
    elif maybe_proof and (proof := _unsupported_proof(ev.sentences, gv, known)) is not None:
        found.append((f"social proof the graph does not state {proof[:40]!r}", 0.5))
    if not found:
        return 1.0, "no claim against the cited facts"
    score = 1.0
    for _, cost in found:
        score *= 1.0 - cost
    return score, "; ".join(w for w, _ in found[:3])


# A name inside a sentence (after a lower-case word or a comma, so not a sentence's or
# a bullet's first word): "When Brandywine Mutual ran Sentrel over two years...",
# "the same picture Pinecrest Mutual had last year". Acronyms of up to five capitals
# ("SIU", "SIUs") are left out: they are a field's vocabulary more often than a name.
_MID_NAME = re.compile(r"(?<=[a-z,;] )([A-Z][\w&'’-]+(?: (?:& )?[A-Z][\w'’-]+)*)")
_SHORT_ACRONYM = re.compile(r"[A-Z]{2,5}s?")
_POSSESSIVE = re.compile(r"['’]s$")
_I_AM = ("I'", "I’")  # "I'd", "I'll": the writer, not a name
# What makes a named party proof: a result ("cut", "fell", "from 16 days to 9") or an
# endorsement ("told us", "ranked", "award"). A bare figure does not: a good email may
# name a well-known party beside one ("Expedia takes 15-25% per booking").
_PROOF_WORD = re.compile(
    r"\b(?:doubled|tripled|halved|cut|cuts|cutting|reduced|fell|fallen|dropped|slashed|"
    r"lowered|shrank|grew|rose|climbed|jumped|boosted|surfaced|told us|ranked|named|awards?|"
    r"saw|went from|raised|improved|saved|credits?|retired|switched)\b|"
    r"\bfrom \$?\d[^.!?]{0,30}\bto \$?\d"
)


def _unknown_named_proof(sentences: list[str], graph_text: str, known: str) -> list[str]:
    """Names nothing the email may draw on mentions (graph, scenario, sender), in a
    sentence that states a result or an endorsement: a customer, a case study, an award
    or a quote the seller made up (round 12: 12 of the tuning corpus' 34 invented-proof
    emails, and no email graded 3 or more)."""
    out = []
    for sent in sentences:
        for m in _MID_NAME.finditer(sent):
            words = [
                w
                for w in (_POSSESSIVE.sub("", w) for w in m.group(1).split())
                if len(w) > 2 and not _SHORT_ACRONYM.fullmatch(w) and not w.startswith(_I_AM)
            ]
            if not words or words[0].lower() in graph_text or words[0].lower() in known:
                continue
            if all(
                w.lower() in graph_text or w.lower() in known or w.lower() in CALENDAR_WORDS
                for w in words
            ):
                continue
            if _PROOF_WORD.search(sent.lower()) is not None:
                out.append(" ".join(words))
                break
    return out


def _unsupported_proof(sentences: list[str], gv: GraphVectors, known: str) -> str | None:
    """The first claim of social proof the graph (or the scenario) does not make: the
    graph states the claim's figures, or the words of its match."""
    if not _ANY_SOCIAL_PROOF.found("\n".join(sentences).lower()):
        return None  # most emails claim none: one first pass for all their sentences
    for sent in sentences:
        low = sent.lower()
        m = _SOCIAL_PROOF.search(low)
        if m is None:
            continue
        said = m.group(0)
        figures = numbers(sent, words=False)
        if said in gv.text or said in known or figures and figures <= gv.all_numbers:
            continue
        return said
    return None


def _measure_clash(
    sentences: list[str], facts: list[str], gv: GraphVectors, known: str
) -> str | None:
    """A quantity the graph nowhere states, in a sentence that words a cited fact
    (half its words shared) stating a quantity of the same kind: "roughly every two
    hours" for "roughly every two minutes", "within 100 meters" for "a few meters".
    Matched by words, not meaning: a changed quantity moves the sentence's meaning
    away from the fact it misquotes. `facts`: the cited sentences that state a
    quantity (`GraphVectors.measured`)."""
    if not facts:
        return None  # no cited fact states a quantity: nothing to misquote
    told = [(s, ms) for s in sentences if (ms := measures(s.lower()) - gv.all_measures)]
    if not told:
        return None
    given = measures(known)
    for sent, ms in told:
        eset = {w for w in _WORD.findall(sent.lower()) if w not in _STOP}
        for fact in facts:
            f = gv.fact(fact)
            if not f.measures or not eset:
                continue
            if len(f.words & eset) < MEASURE_WORDS * min(len(f.words), len(eset)):
                continue
            dims = {_MEASURE_DIM[u] for _, u in f.measures}
            wrong = sorted(m for m in ms - given if _MEASURE_DIM[m[1]] in dims)
            if wrong:
                return (f"says {' '.join(wrong[0])} where the graph says "
                        f"{' '.join(min(f.measures))}")  # fmt: skip
    return None


_NOT_NAMES = frozenset(
    [
        "i",
        "we",
        "you",
        "your",
        "our",
        "their",
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "it",
        "he",
        "she",
        "they",
        "my",
        "one",
        "many",
        "most",
        "some",
        "several",
        "every",
        "each",
    ]
)


def own_job(ev: EmailVectors, gv: GraphVectors) -> tuple[float, str]:
    """Readers mark down an email that tells them what their own company does: the
    graph's Customer Job node is the seller's view of the customer, not news to them."""
    if CUSTOMER_JOB not in gv.sentence_vecs or ev.vecs.shape[0] == 0:
        return 1.0, "not measured"
    sims = ev.vecs @ gv.sentence_vecs[CUSTOMER_JOB].T
    worst = float(sims.max())
    score = 1.0 - min(1.0, max(0.0, (worst - OWN_JOB_FROM) / 0.25))
    if score >= 1.0:
        return 1.0, "does not tell the reader about their own business"
    return score, f"tells the reader what their own business does (cosine {worst:.2f})"


def product(ev: EmailVectors, gv: GraphVectors) -> tuple[float, str]:
    """The email says what the product does: some sentence carries a Product Feature
    node's meaning (cited or not)."""
    feats = gv.features
    if not feats or ev.vecs.shape[0] == 0:
        return 0.0, "never says what the product does"
    said = features_said(ev, gv)
    best, which = max((said[f], f) for f in feats)
    score = min(1.0, max(0.0, (best - 0.3) / (EXPRESSED + 0.08 - 0.3)))
    if score >= 1.0:
        return 1.0, f"says what the product does ({which[:40]})"
    return score, f"barely says what the product does (cosine {best:.2f})"


_LOWER_RUN = re.compile(r"[a-z][a-z-]+")
_FIGURE = re.compile(r"\$?\d[\d,.]*%?")
# The same on an ASCII text (`\d` is [0-9]), starting with a class: `re` skips to a
# "$" or a digit by a bitmap instead of trying the optional "$" at every character.
# A "$" starts a figure only with a digit after it, a digit always.
_FIGURE_ASCII = re.compile(r"[$0-9](?:(?<=\$)(?=[0-9])|(?<=[0-9]))[0-9,.]*%?")
_SALIENT = re.compile(r"\$?\d[\d,.]*%?|\b[A-Z][a-zA-Z0-9&'-]+|\b[a-z][a-z-]{4,}")


def specificity(body: str, notes: str) -> tuple[float, str]:
    """How much of what the seller knew (the prospect's notes: their numbers, names,
    incidents) the email uses. Readers grade an email that ignores a known incident
    as generic, however relevant its topic."""
    want = _specifics(notes)
    if not want:
        return 1.0, "nothing specific known of the prospect"
    low = body.lower()
    figures = (_FIGURE_ASCII if low.isascii() else _FIGURE).findall(low) if _has_digit(low) else ()
    have = stems(_LOWER_RUN.findall(low)) | set(figures)
    used = sorted(w for w in want if w in have)
    share = len(used) / len(want)
    score = min(1.0, share / 0.35)
    return (
        score,
        f"uses {len(used)} of {len(want)} specifics the seller knew "
        f"({', '.join(used[:3]) or 'none'})",
    )


@lru_cache(maxsize=4096)
def _specifics(notes: str) -> frozenset[str]:
    """The notes' numbers, names and telling words (stemmed), once per notes."""
    first = True
    want: set[str] = set()
    for m in _SALIENT.finditer(notes):
        w = m.group(0)
        if w[0].isupper() and first:
            first = False
            continue
        first = False
        w = w.lower().rstrip(".,")
        if w in _STOP or w in _COMMON_NOTE_WORDS:
            continue
        want.add(stem(w) if w.isalpha() else w)
    return frozenset(want)


_COMMON_NOTE_WORDS = frozenset(
    ["wants", "would", "their", "there", "about", "which", "after", "before", "since",
     "still", "every", "other", "these", "those", "being", "could", "should", "while",
     "where", "asked", "looking", "recently", "currently", "really"]
)  # fmt: skip
OWN_JOB_FROM = 0.6  # cosine with the Customer Job node from which an email restates it


FIT_MARGIN = 0.2  # cosine: a gap in fit this wide or wider is the whole scale
# Closeness (cosine of the email's nearest sentence) at which a second feature counts
# as pitched too: above every second feature of the tuning corpus' system emails, which
# pitch one (their highest: 0.65), below most of what LLM-written emails list (median 0.61,
# 90th percentile 0.81).
ALSO_PITCHED = 0.7


def solution_fit(
    ev: EmailVectors, gv: GraphVectors, profile: np.ndarray | None
) -> tuple[float, str] | None:
    """Of the product's features, does the email pitch the one that fits what is
    known of the prospect? The feature the email speaks of most (its closest
    sentence) against the feature closest to the prospect, in the graph's own range.
    None when the graph has one feature or nothing is known of the prospect."""
    feats = gv.features
    if len(feats) < 2 or profile is None or ev.vecs.shape[0] == 0:
        return None
    closeness = features_said(ev, gv)
    fit = gv.feature_fit(profile)  # a feature fits as well as the problem it answers
    # Every feature the email clearly pitches counts, and the one that fits best is
    # judged: an email that walks through three features, the right one among them,
    # does not pitch the wrong one (round 12's packet W: LLM-written emails).
    top = max(feats, key=closeness.__getitem__)
    said = max((f for f in feats if f == top or closeness[f] >= ALSO_PITCHED), key=fit.__getitem__)
    hi, lo = max(fit.values()), min(fit.values())
    # Against the graph's range, but never less than FIT_MARGIN of cosine: two
    # features that fit almost alike are not one right and one wrong (the range
    # alone made any small gap the whole scale; Spearman with readers, tuning
    # graphs' system emails, 0.47 -> 0.56).
    score = 1.0 if hi - lo < 1e-6 else 1.0 - (hi - fit[said]) / max(hi - lo, FIT_MARGIN)
    best = max(fit, key=lambda f: fit[f])
    if said == best:
        return 1.0, f"pitches the feature that fits the prospect best ({said[:40]})"
    return score, f"pitches {said[:35]!r}; {best[:35]!r} fits them better"
