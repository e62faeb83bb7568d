"""The rubric judge (DESIGN §4): deterministic, explainable, fast, for any email.

Every criterion scores in [0, 1] with a one-line reason. Weights, gates and
bands live in this module's "Weights and bands" section and nowhere else.

How the total is made
---------------------
    total = (sum of weight * score over the weighted criteria) * (product of the gates)

Weighted criteria (weights sum to 1, `RubricWeights`):

    grounding        0.15  citations exist in the graph and each cited node's content
                           shows in the body (token overlap)
    argument_chain   0.25  the citations, in order, walk Customer Job -> ... -> a Product
                           Feature node (a connected prefix earns partial credit scaled by
                           how far it got), and the body links the steps with connectives
                           ("leads to", "in turn", "this is where"...) rather than listing
    call_to_action   0.20  the goal, asked as a question (stated: partial)
    personalisation  0.20  prospect's first name, company; title/industry and a subject
                           that names them are small extras
    concision        0.05  body word band, subject word band
    readability      0.15  sentence length, prose rather than list lines, paragraphs,
                           a greeting and a sign-off

Gates (must-pass checks; they do not earn credit, they take it away, so a spam-free
email is not "good" for being spam-free, and an unsendable one scores low however
well it argues). They are reported with weight 0:

    english          share of common English function words (a French email -> 0)
    no_placeholders  `[Your Name]`, `{{x}}`, `<NAME>`, TODO, lorem ipsum -> 0
    no_spam          spam phrases, ALL-CAPS words, "!!" -> minus 0.25 each

Without a graph (`store=None`) grounding and argument_chain cannot be checked:
they are reported with weight 0 and reason "no graph", and the remaining weights
are renormalised.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from codreamer.graph.schema import is_product_feature
from codreamer.judge.words import (
    CONNECTIVE_PHRASES,
    CONNECTIVE_WORDS,
    EN_FUNCTION_WORDS,
    FOREIGN_FUNCTION_WORDS,
    SPAM_PHRASES,
)
from codreamer.models import CUSTOMER_JOB, CriterionScore, FinalEmail, Judgement, Scenario

if TYPE_CHECKING:  # networkx stays out of the import path
    from codreamer.graph.store import GraphStore

# ============================ Weights and bands =============================


@dataclass(frozen=True)
class RubricWeights:
    """Weights of the additive criteria (they should sum to 1; the total divides by
    their sum anyway). Gates multiply; see the module docstring."""

    grounding: float = 0.15
    argument_chain: float = 0.25
    call_to_action: float = 0.20
    personalisation: float = 0.20
    concision: float = 0.05
    readability: float = 0.15

    def as_dict(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}


WEIGHTED = ("grounding", "argument_chain", "call_to_action", "personalisation", "concision",
            "readability")
GATES = ("english", "no_placeholders", "no_spam")
CRITERIA = WEIGHTED + GATES
GRAPH_CRITERIA = ("grounding", "argument_chain")

# grounding: a cited node counts as shown when this share of its content words
# (non-function words of 3+ letters) appears in the body; less gives pro-rata credit.
GROUNDING_FULL_OVERLAP = 0.6

# argument_chain: a chain that stops before a Product Feature earns at most this,
# times the share of the way it got (hops made / (hops made + hops still to go)).
CHAIN_INCOMPLETE_MAX = 0.5
CHAIN_DEAD_END_HOPS = 3  # "hops still to go" from a node that cannot reach a feature
CHAIN_EXTRA_CITATION_PENALTY = 0.1  # per citation past the feature or off the chain
CHAIN_EXTRA_FLOOR = 0.5
# Linking: share of hops whose step the body connects with a connective it added
# (connectives already inside the cited content don't count). A bare list keeps
# only the floor.
CHAIN_LINK_FLOOR = 0.3

# call_to_action scores.
CTA_ASKED = 1.0  # a question that carries the goal
CTA_STATED = 0.5  # the goal in a sentence, not asked
CTA_OTHER_QUESTION = 0.3  # a question, but not about the goal
CTA_LABEL = 0.2  # only a "Goal: ..." label
CTA_GOAL_MATCH = 0.5  # share of the goal's content words that must appear together

# personalisation parts (renormalised over the parts the prospect has).
PERS_FIRST_NAME = 0.45
PERS_COMPANY = 0.30
PERS_TITLE_OR_INDUSTRY = 0.15
PERS_SUBJECT = 0.10

# concision bands: (zero below, ideal from, ideal to, zero above), linear between.
BODY_WORDS_BAND = (15, 50, 200, 320)
SUBJECT_WORDS_BAND = (0, 2, 9, 18)
CONCISION_BODY_SHARE = 0.7  # the subject band takes the rest

# readability.
SENTENCE_WORDS_BAND = (2, 6, 30, 55)  # mean words per sentence
READ_SENTENCES = 0.30
READ_PROSE = 0.20  # share of lines that end like sentences (not list items)
READ_PARAGRAPHS = 0.20  # 3+ paragraphs: full; 2: 0.6; 1: 0.2
READ_GREETING = 0.15
READ_SIGNOFF = 0.15

# english: score 0 at or below this function-word share (or the best foreign
# language's share, whichever is higher), 1 at this much above it.
ENGLISH_FLOOR = 0.05
ENGLISH_SPAN = 0.13

# no_spam: each hit costs this much; all-caps words of 4+ letters beyond this many
# count as hits (a few acronyms such as HIPAA are normal).
SPAM_HIT_COST = 0.25
SPAM_CAPS_ALLOWED = 2

# ============================================================================

# Letters (Latin with accents, Greek, Cyrillic) and digits; an explicit class is
# about twice as fast as `\w` and the judge runs thousands of times a second.
_TOKEN = re.compile(r"[a-z0-9\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]+")
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+")
_SENT_BREAK = re.compile(r"[.!?][ \t]")  # within a line; each line ends one more
_PARA_SPLIT = re.compile(r"\n\s*\n")
_GREETING = re.compile(
    r"^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b[^.!?]{0,40}[,!:.]?$",
    re.IGNORECASE,
)
_SIGNOFF = re.compile(
    r"^(?:best|kind regards|warm regards|best regards|regards|thanks|thank you|many thanks|"
    r"cheers|sincerely|all the best|yours)\b[^.?]{0,25}[,.!]?$",
    re.IGNORECASE,
)
_LIST_LINE = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+")
_GOAL_LABEL = re.compile(r"^\s*goal\s*:", re.IGNORECASE | re.MULTILINE)
_PLACEHOLDER = re.compile(
    r"\[(?:your|insert|name|first|last|company|prospect|recipient|title|date|link|sender|"
    r"product|x+)\b[^\]]{0,40}\]"
    r"|\[[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*){0,3}\]"
    r"|\{\{.*?\}\}|\{[a-z_][a-z0-9_]*\}|\{%.*?%\}"
    r"|<[A-Z][A-Z_ ]{1,30}>"
    r"|\b(?:TODO|TBD|FIXME|XXX)\b"
    r"|lorem ipsum",
)
_PLACEHOLDER_CI = re.compile(r"\[(?:your|insert) [^\]]{1,40}\]|lorem ipsum", re.IGNORECASE)
_CAPS_WORD = re.compile(r"[A-Z][A-Z][A-Z][A-Z]+")  # 3x faster than \b[A-Z]{4,}\b
_BANGS = re.compile(r"!{2,}")
_GOAL_VERBS = frozenset(
    ("secure", "book", "schedule", "arrange", "set", "get", "land", "start", "run", "organise",
     "organize", "hold", "plan", "propose", "request", "win", "obtain", "confirm", "have")
)


def _band(x: float, band: tuple[float, float, float, float]) -> float:
    lo0, lo1, hi1, hi0 = band
    if lo1 <= x <= hi1:
        return 1.0
    if x < lo1:
        return 0.0 if x <= lo0 else (x - lo0) / (lo1 - lo0)
    return 0.0 if x >= hi0 else (hi0 - x) / (hi0 - hi1)


def _clamp(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


# Phrases (connectives, spam) are matched on tokens, not with one big alternation
# regex (the judge's slowest part when it was one): phrases whose first word occurs
# are counted in the space-joined token string, so " in turn " matches whole words.
_Phrase = str  # the phrase's tokens joined by single spaces


def _phrase_index(phrases: tuple[str, ...]) -> dict[str, list[_Phrase]]:
    index: dict[str, list[_Phrase]] = {}
    for p in phrases:
        toks = _TOKEN.findall(p.lower())
        if toks:
            index.setdefault(toks[0], []).append(" ".join(toks))
    return index


def _phrase_counts(
    tokens: list[str], counts: Counter[str], index: dict[str, list[_Phrase]]
) -> Counter[_Phrase]:
    out: Counter[_Phrase] = Counter()
    firsts = index.keys() & counts.keys()
    if not firsts:
        return out
    joined = " " + " ".join(tokens) + " "
    for first in firsts:
        for ph in index[first]:
            n = counts[first] if ph == first else joined.count(f" {ph} ")
            if n:
                out[ph] = n
    return out


_CONNECTIVES = _phrase_index(tuple(CONNECTIVE_WORDS) + CONNECTIVE_PHRASES)
_SPAM = _phrase_index(tuple(p for p in SPAM_PHRASES if _TOKEN.search(p)))
_SPAM_SYMBOLS = tuple(p for p in SPAM_PHRASES if not _TOKEN.search(p))  # e.g. "$$"
_PLACEHOLDER_HINTS = ("[", "{", "<", "TODO", "TBD", "FIXME", "XXX", "lorem", "Lorem", "LOREM")


def _content_tokens(text: str) -> frozenset[str]:
    return frozenset(
        t for t in _TOKEN.findall(text.lower()) if len(t) >= 3 and t not in EN_FUNCTION_WORDS
    )


def _connectives(tokens: list[str], counts: Counter[str] | None = None) -> Counter[_Phrase]:
    return _phrase_counts(tokens, Counter(tokens) if counts is None else counts, _CONNECTIVES)


@dataclass(frozen=True, slots=True)
class _ScenarioInfo:
    first: re.Pattern[str] | None
    company: str
    extras: tuple[str, ...]  # title, industry (lower-cased)
    goal_tokens: frozenset[str]


class RubricJudge:
    """Scores emails against a graph (optional) and a scenario. Thread-safe for reads;
    the caches only grow with the graph's nodes and the scenarios seen."""

    name = "rubric"

    def __init__(self, store: GraphStore | None = None, weights: RubricWeights | None = None):
        self.store = store
        self.weights = weights or RubricWeights()
        self._w = self.weights.as_dict()
        self._node_tokens: dict[str, frozenset[str]] = {}
        self._node_conn: dict[str, Counter[_Phrase]] = {}
        self._scenarios: dict[tuple[Any, ...], _ScenarioInfo] = {}

    # -- caches ---------------------------------------------------------------
    def _tokens_of(self, node_id: str) -> frozenset[str]:
        toks = self._node_tokens.get(node_id)
        if toks is None:
            assert self.store is not None
            toks = _content_tokens(self.store.content(node_id))
            self._node_tokens[node_id] = toks
        return toks

    def _conn_of(self, node_id: str) -> Counter[_Phrase]:
        c = self._node_conn.get(node_id)
        if c is None:
            assert self.store is not None
            c = _connectives(_TOKEN.findall(self.store.content(node_id).lower()))
            self._node_conn[node_id] = c
        return c

    def _scenario_info(self, scenario: Scenario) -> _ScenarioInfo:
        p = scenario.prospect
        key = (p.name, p.company, p.title, p.industry, scenario.goal)
        info = self._scenarios.get(key)
        if info is None:
            first = p.first_name.strip()
            goal_toks = [t for t in _TOKEN.findall(scenario.goal.lower())]
            if goal_toks and goal_toks[0] in _GOAL_VERBS:
                goal_toks = goal_toks[1:]
            info = _ScenarioInfo(
                first=re.compile(rf"\b{re.escape(first)}\b", re.IGNORECASE) if first else None,
                company=(p.company or "").strip().lower(),
                extras=tuple(x.strip().lower() for x in (p.title, p.industry) if x and x.strip()),
                goal_tokens=frozenset(
                    t for t in goal_toks if t not in EN_FUNCTION_WORDS and t != "up"
                ),
            )
            if len(self._scenarios) > 1024:
                self._scenarios.clear()
            self._scenarios[key] = info
        return info

    # -- the judgement -------------------------------------------------------
    def ceiling(self, citations: list[str]) -> float:
        """An upper bound on the total of *any* email with these citations.

        A chain that does not reach a Product Feature scores at most
        CHAIN_INCOMPLETE_MAX on argument_chain, and every other criterion at
        most 1, so the total cannot pass this. The oracle uses it to skip
        judging walks that cannot beat the best found; keep it a true bound.
        """
        if self.store is None or not citations:
            return 1.0
        if any(is_product_feature(c) for c in citations):
            return 1.0
        wsum = sum(self._w.values()) or 1.0
        return 1.0 - self._w["argument_chain"] * (1.0 - CHAIN_INCOMPLETE_MAX) / wsum

    def judge(self, email: FinalEmail, scenario: Scenario) -> Judgement:
        subject = email.subject or ""
        body = email.body or ""
        body_lower = body.lower()
        body_tokens = _TOKEN.findall(body_lower)
        body_counts = Counter(body_tokens)
        body_token_set = body_counts.keys()
        info = self._scenario_info(scenario)

        results: dict[str, tuple[float, str]] = {}
        if self.store is None:
            results["grounding"] = (0.0, "no graph: not scored")
            results["argument_chain"] = (0.0, "no graph: not scored")
        else:
            results["grounding"] = self._grounding(email.citations, body_token_set)
            results["argument_chain"] = self._argument_chain(
                email.citations, body_tokens, body_counts, scenario
            )
        results["call_to_action"] = _call_to_action(body, info)
        results["personalisation"] = _personalisation(subject, body, body_lower, info)
        results["concision"] = _concision(subject, len(body_tokens))
        results["readability"] = _readability(body)
        results["english"] = _english(body_counts, len(body_tokens))
        results["no_placeholders"] = _no_placeholders(subject, body)
        results["no_spam"] = _no_spam(subject, body, body_tokens, body_counts)

        weights = dict(self._w)
        if self.store is None:
            for name in GRAPH_CRITERIA:
                weights[name] = 0.0
        wsum = sum(weights.values()) or 1.0
        quality = sum(weights[n] * results[n][0] for n in WEIGHTED) / wsum
        gate = 1.0
        for n in GATES:
            gate *= results[n][0]
        total = round(_clamp(quality * gate), 4)

        criteria = {
            n: CriterionScore.model_construct(
                score=round(_clamp(results[n][0]), 4),
                weight=round(weights.get(n, 0.0) / wsum, 4) if n in weights else 0.0,
                reason=results[n][1],
            )
            for n in CRITERIA
        }
        return Judgement.model_construct(total=total, criteria=criteria)

    def score(self, email: FinalEmail, scenario: Scenario) -> float:
        return self.judge(email, scenario).total

    # -- graph criteria ------------------------------------------------------
    def _grounding(self, citations: list[str], body_tokens: Any) -> tuple[float, str]:
        assert self.store is not None
        cited = list(dict.fromkeys(citations))
        if not cited:
            return 0.0, "no citations"
        if not body_tokens:
            return 0.0, "empty body: no cited content shown"
        unknown = [c for c in cited if c not in self.store]
        total = 0.0
        shown = 0
        for c in cited:
            if c in unknown:
                continue
            toks = self._tokens_of(c)
            if not toks:
                credit = 0.5  # nothing to check against
            else:
                overlap = len(toks & body_tokens) / len(toks)
                credit = min(1.0, overlap / GROUNDING_FULL_OVERLAP)
            shown += credit >= 1.0
            total += credit
        score = total / len(cited)
        known = len(cited) - len(unknown)
        reason = f"{known}/{len(cited)} citations in the graph, content shown for {shown}"
        if unknown:
            reason += "; unknown: " + ", ".join(repr(u) for u in unknown[:3])
            if len(unknown) > 3:
                reason += f" (+{len(unknown) - 3} more)"
        return score, reason

    def _argument_chain(
        self,
        citations: list[str],
        body_tokens: list[str],
        body_counts: Counter[str],
        scenario: Scenario,
    ) -> tuple[float, str]:
        store = self.store
        assert store is not None
        if not citations:
            return 0.0, "no citations"
        starts = {CUSTOMER_JOB, *scenario.seed_nodes}
        if citations[0] not in starts or citations[0] not in store:
            return 0.0, f"does not start at {CUSTOMER_JOB!r} (starts at {citations[0]!r})"
        chain = [citations[0]]
        complete = is_product_feature(chain[0])
        for nxt in citations[1:]:
            if complete or not store.has_edge(chain[-1], nxt):
                break
            chain.append(nxt)
            if is_product_feature(nxt):
                complete = True
        hops = len(chain) - 1
        extra = len(citations) - len(chain)
        if complete:
            structure = 1.0
            what = f"connected path of {hops} hops to {chain[-1]!r}"
        else:
            to_go = store.hops_to_feature(chain[-1])
            dead = to_go is None
            to_go = CHAIN_DEAD_END_HOPS if to_go is None else to_go
            structure = CHAIN_INCOMPLETE_MAX * (hops / (hops + to_go)) if hops else 0.0
            what = (
                f"stops after {hops} hops at {chain[-1]!r}"
                + (" (a dead end)" if dead else f", {to_go} short of a Product Feature")
            )
        if extra:
            structure *= max(CHAIN_EXTRA_FLOOR, 1.0 - CHAIN_EXTRA_CITATION_PENALTY * extra)
            what += f"; {extra} citation(s) off the chain"
        if hops == 0:
            return structure, what
        body_conn = _connectives(body_tokens, body_counts)
        content_conn: Counter[_Phrase] = Counter()
        for nid in dict.fromkeys(chain):
            content_conn.update(self._conn_of(nid))
        added = sum(max(0, n - content_conn.get(k, 0)) for k, n in body_conn.items())
        link = min(1.0, added / hops)
        score = structure * (CHAIN_LINK_FLOOR + (1.0 - CHAIN_LINK_FLOOR) * link)
        if link < 1.0:
            what += f"; steps linked {min(added, hops)}/{hops}"
        return score, what


# -- graph-free criteria (pure functions of the text) -----------------------------


def _call_to_action(body: str, info: _ScenarioInfo) -> tuple[float, str]:
    if not body.strip():
        return 0.0, "empty body"
    goal = info.goal_tokens
    need = max(1, round(CTA_GOAL_MATCH * len(goal))) if goal else 0

    def carries_goal(s: str) -> bool:
        return bool(goal) and len(goal.intersection(_TOKEN.findall(s.lower()))) >= need

    questions = (
        [
            s
            for line in body.splitlines()
            if "?" in line
            for s in _SENT_SPLIT.split(line)
            if s.rstrip().endswith("?")
        ]
        if "?" in body
        else []
    )
    if any(carries_goal(q) for q in questions):
        return CTA_ASKED, "asks for the goal in a question"
    labelled = bool(_GOAL_LABEL.search(body))
    sentences = [s for s in _SENT_SPLIT.split(body.replace("\n", " ")) if s.strip()]
    stated = [
        s for s in sentences if carries_goal(s) and not s.lstrip().lower().startswith("goal")
    ]
    if stated:
        return CTA_STATED, "states the goal but does not ask"
    if labelled:
        return CTA_LABEL, "only a 'Goal:' label, no call to action"
    if questions:
        return CTA_OTHER_QUESTION, "asks a question, but not for the goal"
    return 0.0, "no call to action"


def _personalisation(
    subject: str, body: str, body_lower: str, info: _ScenarioInfo
) -> tuple[float, str]:
    parts: list[tuple[float, bool, str]] = []
    has_first = bool(info.first and info.first.search(body))
    parts.append((PERS_FIRST_NAME, has_first, "first name"))
    if info.company:
        parts.append((PERS_COMPANY, info.company in body_lower, "company"))
    if info.extras:
        parts.append(
            (PERS_TITLE_OR_INDUSTRY, any(x in body_lower for x in info.extras), "title/industry")
        )
    subj = subject.lower()
    subj_hit = bool(info.first and info.first.search(subject)) or bool(
        info.company and info.company in subj
    )
    parts.append((PERS_SUBJECT, subj_hit, "subject"))
    total_w = sum(w for w, _, _ in parts)
    score = sum(w for w, ok, _ in parts if ok) / total_w
    have = [n for _, ok, n in parts if ok]
    miss = [n for _, ok, n in parts if not ok]
    if not miss:
        return score, "names " + ", ".join(have)
    return score, ("names " + ", ".join(have) + "; " if have else "") + "missing " + ", ".join(
        miss
    )


def _concision(subject: str, body_words: int) -> tuple[float, str]:
    subject_words = len(subject.split())
    b = _band(body_words, BODY_WORDS_BAND)
    s = _band(subject_words, SUBJECT_WORDS_BAND) if subject_words else 0.0
    score = CONCISION_BODY_SHARE * b + (1.0 - CONCISION_BODY_SHARE) * s
    lo, hi = BODY_WORDS_BAND[1], BODY_WORDS_BAND[2]
    slo, shi = SUBJECT_WORDS_BAND[1], SUBJECT_WORDS_BAND[2]
    return score, (
        f"body {body_words} words (ideal {lo}-{hi}), subject {subject_words} words "
        f"(ideal {slo}-{shi})"
    )


def _readability(body: str) -> tuple[float, str]:
    lines = [ln.strip() for ln in body.strip().splitlines() if ln.strip()]
    if not lines:
        return 0.0, "empty body"
    greeting = bool(_GREETING.match(lines[0])) and len(lines[0].split()) <= 6
    signoff_at = next(
        (i for i in range(len(lines) - 1, max(len(lines) - 4, 0) - 1, -1)
         if _SIGNOFF.match(lines[i]) and len(lines[i].split()) <= 5),
        None,
    )
    signoff = signoff_at is not None and signoff_at > 0
    text_lines = lines[1 if greeting else 0 : signoff_at if signoff else len(lines)]
    # Sentences: each end mark followed by a space, plus each line's last sentence.
    joined = "\n".join(text_lines)
    n_words = len(joined.split())
    n_sentences = len(_SENT_BREAK.findall(joined)) + len(text_lines)
    mean_words = n_words / n_sentences if n_sentences else 0.0
    s_sent = _band(mean_words, SENTENCE_WORDS_BAND)
    prose_lines = [
        ln for ln in text_lines if ln[-1] in ".!?" and not _LIST_LINE.match(ln)
    ]
    s_prose = len(prose_lines) / len(text_lines) if text_lines else 0.0
    paras = [p for p in _PARA_SPLIT.split(body.strip()) if p.strip()]
    n_par = len(paras)
    s_par = 1.0 if n_par >= 3 else 0.6 if n_par == 2 else 0.2
    score = (
        READ_SENTENCES * s_sent
        + READ_PROSE * s_prose
        + READ_PARAGRAPHS * s_par
        + READ_GREETING * greeting
        + READ_SIGNOFF * signoff
    )
    notes = [f"{mean_words:.0f} words/sentence", f"{n_par} paragraphs"]
    if s_prose < 1.0:
        notes.append(f"{len(text_lines) - len(prose_lines)} list-like lines")
    notes.append("greeting" if greeting else "no greeting")
    notes.append("sign-off" if signoff else "no sign-off")
    return score, ", ".join(notes)


def _english(counts: Counter[str], n: int) -> tuple[float, str]:
    if not n:
        return 0.0, "empty body"
    keys = counts.keys()
    en = sum(counts[t] for t in keys & EN_FUNCTION_WORDS) / n
    foreign_name, foreign = "", 0.0
    for lang, words in FOREIGN_FUNCTION_WORDS.items():
        share = sum(counts[t] for t in keys & words) / n
        if share > foreign:
            foreign_name, foreign = lang, share
    score = _clamp((en - max(foreign, ENGLISH_FLOOR)) / ENGLISH_SPAN)
    reason = f"{en:.0%} English function words"
    if foreign > ENGLISH_FLOOR:
        reason += f", {foreign:.0%} {foreign_name}"
    return score, reason


def _no_placeholders(subject: str, body: str) -> tuple[float, str]:
    text = f"{subject}\n{body}"
    if not any(h in text for h in _PLACEHOLDER_HINTS):
        return 1.0, "no placeholders"
    m = _PLACEHOLDER.search(text) or _PLACEHOLDER_CI.search(text)
    if m:
        return 0.0, f"placeholder {m.group(0)[:40]!r}"
    return 1.0, "no placeholders"


def _no_spam(
    subject: str, body: str, body_tokens: list[str], body_counts: Counter[str]
) -> tuple[float, str]:
    text = f"{subject}\n{body}"
    subject_tokens = _TOKEN.findall(subject.lower())
    found = _phrase_counts(body_tokens, body_counts, _SPAM)
    if subject_tokens:
        found.update(_phrase_counts(subject_tokens, Counter(subject_tokens), _SPAM))
    hits = [ph for ph, n in found.items() for _ in range(n)]
    hits.extend(sym for sym in _SPAM_SYMBOLS if sym in text)
    caps = _CAPS_WORD.findall(text)
    if len(caps) > SPAM_CAPS_ALLOWED:
        hits.extend(caps[SPAM_CAPS_ALLOWED:])
    hits.extend(_BANGS.findall(text))
    if not hits:
        return 1.0, "no spam phrasing"
    shown = ", ".join(repr(h) for h in hits[:3]) + (" …" if len(hits) > 3 else "")
    return _clamp(1.0 - SPAM_HIT_COST * len(hits)), f"{len(hits)} spam signal(s): {shown}"
