"""The rubric's graph-free criteria (DESIGN §4): pure functions of the email's text
and the scenario, each a score in [0, 1] with a one-line reason.

    call_to_action, personalisation, concision, readability   (weighted)
    english, no_placeholders, no_spam                         (gates)

Also the tokeniser and phrase counting the graph criteria in
`codreamer.judge.rubric` share. Their weights and bands are in
`codreamer.judge.bands`; how they make a total is in the rubric's docstring.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from codreamer.judge.bands import (
    BODY_WORDS_BAND,
    CONCISION_BODY_SHARE,
    CTA_ASKED,
    CTA_GOAL_MATCH,
    CTA_LABEL,
    CTA_OTHER_QUESTION,
    CTA_STATED,
    ENGLISH_FLOOR,
    ENGLISH_SPAN,
    PERS_COMPANY,
    PERS_FIRST_NAME,
    PERS_SUBJECT,
    PERS_TITLE_OR_INDUSTRY,
    READ_GREETING,
    READ_PARAGRAPHS,
    READ_PROSE,
    READ_SENTENCES,
    READ_SIGNOFF,
    SENTENCE_WORDS_BAND,
    SPAM_CAPS_ALLOWED,
    SPAM_HIT_COST,
    SUBJECT_WORDS_BAND,
)
from codreamer.judge.words import (
    CONNECTIVE_PHRASES,
    CONNECTIVE_WORDS,
    EN_FUNCTION_WORDS,
    FOREIGN_FUNCTION_WORDS,
    SPAM_PHRASES,
)
from codreamer.models import Scenario

# Letters (Latin with accents, Greek, Cyrillic) and digits; an explicit class is
# about twice as fast as `\w` and the judge runs thousands of times a second.
TOKEN = re.compile(r"[a-z0-9\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]+")
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
)  # fmt: skip


def _band(x: float, band: tuple[float, float, float, float]) -> float:
    lo0, lo1, hi1, hi0 = band
    if lo1 <= x <= hi1:
        return 1.0
    if x < lo1:
        return 0.0 if x <= lo0 else (x - lo0) / (lo1 - lo0)
    return 0.0 if x >= hi0 else (hi0 - x) / (hi0 - hi1)


def clamp(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


# Phrases (connectives, spam) are matched on tokens, not with one big alternation
# regex (the judge's slowest part when it was one): phrases whose first word occurs
# are counted in the space-joined token string, so " in turn " matches whole words.
Phrase = str  # the phrase's tokens joined by single spaces


def _phrase_index(phrases: tuple[str, ...]) -> dict[str, list[Phrase]]:
    index: dict[str, list[Phrase]] = {}
    for p in phrases:
        toks = TOKEN.findall(p.lower())
        if toks:
            index.setdefault(toks[0], []).append(" ".join(toks))
    return index


def _phrase_counts(
    tokens: list[str], counts: Counter[str], index: dict[str, list[Phrase]]
) -> Counter[Phrase]:
    out: Counter[Phrase] = Counter()
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
_SPAM = _phrase_index(tuple(p for p in SPAM_PHRASES if TOKEN.search(p)))
_SPAM_SYMBOLS = tuple(p for p in SPAM_PHRASES if not TOKEN.search(p))  # e.g. "$$"
_PLACEHOLDER_HINTS = ("[", "{", "<", "TODO", "TBD", "FIXME", "XXX", "lorem", "Lorem", "LOREM")


def content_tokens(text: str) -> frozenset[str]:
    return frozenset(
        t for t in TOKEN.findall(text.lower()) if len(t) >= 3 and t not in EN_FUNCTION_WORDS
    )


def connectives(tokens: list[str], counts: Counter[str] | None = None) -> Counter[Phrase]:
    return _phrase_counts(tokens, Counter(tokens) if counts is None else counts, _CONNECTIVES)


@dataclass(frozen=True, slots=True)
class ScenarioInfo:
    first: re.Pattern[str] | None
    company: str
    extras: tuple[str, ...]  # title, industry (lower-cased)
    goal_tokens: frozenset[str]


def scenario_info(scenario: Scenario) -> ScenarioInfo:
    """What the text criteria need to know of a scenario (the rubric caches it)."""
    p = scenario.prospect
    first = p.first_name.strip()
    goal_toks = [t for t in TOKEN.findall(scenario.goal.lower())]
    if goal_toks and goal_toks[0] in _GOAL_VERBS:
        goal_toks = goal_toks[1:]
    return ScenarioInfo(
        first=re.compile(rf"\b{re.escape(first)}\b", re.IGNORECASE) if first else None,
        company=(p.company or "").strip().lower(),
        extras=tuple(x.strip().lower() for x in (p.title, p.industry) if x and x.strip()),
        goal_tokens=frozenset(t for t in goal_toks if t not in EN_FUNCTION_WORDS and t != "up"),
    )


# -- graph-free criteria (pure functions of the text) -----------------------------


def call_to_action(body: str, info: ScenarioInfo) -> tuple[float, str]:
    if not body.strip():
        return 0.0, "empty body"
    goal = info.goal_tokens
    need = max(1, round(CTA_GOAL_MATCH * len(goal))) if goal else 0

    def carries_goal(s: str) -> bool:
        return bool(goal) and len(goal.intersection(TOKEN.findall(s.lower()))) >= need

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
    stated = [s for s in sentences if carries_goal(s) and not s.lstrip().lower().startswith("goal")]
    if stated:
        return CTA_STATED, "states the goal but does not ask"
    if labelled:
        return CTA_LABEL, "only a 'Goal:' label, no call to action"
    if questions:
        return CTA_OTHER_QUESTION, "asks a question, but not for the goal"
    return 0.0, "no call to action"


def personalisation(
    subject: str, body: str, body_lower: str, info: ScenarioInfo
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
    return score, ("names " + ", ".join(have) + "; " if have else "") + "missing " + ", ".join(miss)


def concision(subject: str, body_words: int) -> tuple[float, str]:
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


def readability(body: str) -> tuple[float, str]:
    lines = [ln.strip() for ln in body.strip().splitlines() if ln.strip()]
    if not lines:
        return 0.0, "empty body"
    greeting = bool(_GREETING.match(lines[0])) and len(lines[0].split()) <= 6
    signoff_at = next(
        (
            i
            for i in range(len(lines) - 1, max(len(lines) - 4, 0) - 1, -1)
            if _SIGNOFF.match(lines[i]) and len(lines[i].split()) <= 5
        ),
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
    prose_lines = [ln for ln in text_lines if ln[-1] in ".!?" and not _LIST_LINE.match(ln)]
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


def english(counts: Counter[str], n: int) -> tuple[float, str]:
    if not n:
        return 0.0, "empty body"
    keys = counts.keys()
    en = sum(counts[t] for t in keys & EN_FUNCTION_WORDS) / n
    foreign_name, foreign = "", 0.0
    for lang, words in FOREIGN_FUNCTION_WORDS.items():
        share = sum(counts[t] for t in keys & words) / n
        if share > foreign:
            foreign_name, foreign = lang, share
    score = clamp((en - max(foreign, ENGLISH_FLOOR)) / ENGLISH_SPAN)
    reason = f"{en:.0%} English function words"
    if foreign > ENGLISH_FLOOR:
        reason += f", {foreign:.0%} {foreign_name}"
    return score, reason


def no_placeholders(subject: str, body: str) -> tuple[float, str]:
    text = f"{subject}\n{body}"
    if not any(h in text for h in _PLACEHOLDER_HINTS):
        return 1.0, "no placeholders"
    m = _PLACEHOLDER.search(text) or _PLACEHOLDER_CI.search(text)
    if m:
        return 0.0, f"placeholder {m.group(0)[:40]!r}"
    return 1.0, "no placeholders"


def no_spam(
    subject: str, body: str, body_tokens: list[str], body_counts: Counter[str]
) -> tuple[float, str]:
    text = f"{subject}\n{body}"
    subject_tokens = TOKEN.findall(subject.lower())
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
    return clamp(1.0 - SPAM_HIT_COST * len(hits)), f"{len(hits)} spam signal(s): {shown}"
