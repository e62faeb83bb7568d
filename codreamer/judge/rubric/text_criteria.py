"""The rubric's graph-free criteria (DESIGN §4): pure functions of the email's text
and the scenario, each a score in [0, 1] with a one-line reason.

    call_to_action, personalisation, concision, readability   (weighted)
    english                                                   (gate)

Also what they share with the other parts: the email's parsed view (`EmailText`)
and the scenario's (`ScenarioInfo`, with the prospect profile relevance uses).
Numbers are in `codreamer.judge.rubric.bands`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from codreamer.judge.rubric.bands import (
    BODY_WORDS_BAND,
    CONCISION_BODY_SHARE,
    CTA_ASKED,
    CTA_GOAL_MATCH,
    CTA_IMPERATIVE,
    CTA_LABEL,
    CTA_OTHER_QUESTION,
    CTA_STATED,
    ENGLISH_FLOOR,
    ENGLISH_SPAN,
    PERS_COMPANY,
    PERS_CONTEXT,
    PERS_NAME,
    PERS_SUBJECT,
    READ_GREETING,
    READ_PARAGRAPHS,
    READ_PROSE,
    READ_SENTENCES,
    READ_SIGNOFF,
    REL_INDUSTRY,
    REL_NOTES,
    REL_ROLE,
    REL_TECH,
    REL_TITLE,
    SENTENCE_WORDS_BAND,
    SUBJECT_WORDS_BAND,
)
from codreamer.judge.rubric.first_pass import FirstPass, any_of
from codreamer.judge.rubric.language import (
    TOKEN,
    Sentence,
    concept,
    concepts,
    concepts_of_tokens,
    sentences,
)
from codreamer.judge.rubric.words import (
    ASK_IMPERATIVES,
    ASK_WORDS,
    COMPANY_SUFFIXES,
    EN_FUNCTION_WORDS,
    FOREIGN_FUNCTION_WORDS,
    ROLE_CONCEPTS,
)
from codreamer.models import Scenario

_GREETING = re.compile(
    r"^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b[^.!?]{0,40}[,!:.—-]?$",
    re.IGNORECASE,
)
_HONORIFIC_DOT = re.compile(r"\b(Dr|Mr|Ms|Mrs|Prof)\.", re.IGNORECASE)  # "Dear Dr. Hoffmann,"
_SIGNOFF = re.compile(
    r"^(?:best|kind regards|warm regards|best regards|regards|thanks|thank you|many thanks|"
    r"cheers|sincerely|all the best|yours|talk soon|speak soon|warmly|with thanks|"
    r"with (?:best|kind|warm) (?:regards|wishes)|best wishes|warm wishes|respectfully|"
    r"with gratitude|take care)\b[^.?]{0,25}[,.!—-]?$",
    re.IGNORECASE,
)
_NAME_LINE = re.compile(r"^[A-Z][\w.'-]*(?:[ ,]+[A-Z&][\w.&'-]*){0,4}$")
_LIST_LINE = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+")
_IMPERATIVE = re.compile("|".join(re.escape(p) for p in ASK_IMPERATIVES))
_GOAL_LABEL = re.compile(r"^\s*goal\s*:", re.IGNORECASE | re.MULTILINE)
_ASK_OPENERS = ("would", "could", "can", "shall", "are you", "is there", "how about",
                "worth", "open to", "any chance", "do you have", "might", "may i",
                "does", "is", "free", "up for", "fancy")  # fmt: skip
_LINKING = re.compile(r"^(?:and|also|plus|separately|additionally|finally|lastly|or)\b[,\s]*")
_GOAL_VERBS = frozenset(
    ("secure", "book", "schedule", "arrange", "set", "get", "land", "start", "run", "organise",
     "organize", "hold", "plan", "propose", "request", "win", "obtain", "confirm", "have")
)  # fmt: skip
# The kind of meeting a goal asks for (after synonyms); a question asking for that
# kind asks for the goal even in other words ("Worth a quick chat?").
_MEETING_KINDS = frozenset(concept(w) for w in ("call", "demo", "pilot", "minute", "discovery"))


_ANY_FOREIGN = frozenset().union(*FOREIGN_FUNCTION_WORDS.values())


def band(x: float, b: tuple[float, float, float, float]) -> float:
    lo0, lo1, hi1, hi0 = b
    if lo1 <= x <= hi1:
        return 1.0
    if x < lo1:
        return 0.0 if x <= lo0 else (x - lo0) / (lo1 - lo0)
    return 0.0 if x >= hi0 else (hi0 - x) / (hi0 - hi1)


def clamp(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


# -- the parsed views -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScenarioInfo:
    first: str  # lower case
    last: str
    company: str  # lower case, whole
    company_word: str  # its most telling word ("northfield")
    goal: frozenset[str]  # the goal's concepts, without its verb
    goal_kind: frozenset[str]  # the meeting it asks for (call, demo, pilot...)
    profile: dict[str, float]  # concept -> weight (notes, title, role, stack, industry)
    has_profile: bool
    writes_as: re.Pattern[str] | None  # "I'm <first name>", "we at <company>"
    writes_as_any: FirstPass | None  # its first pass (most emails write as the sender)
    own: frozenset[str]  # the concepts of the reader's names and company


def scenario_info(scenario: Scenario) -> ScenarioInfo:
    """What the criteria need to know of a scenario (the rubric caches it)."""
    p = scenario.prospect
    names = [t for t in TOKEN.findall(p.name.lower()) if t not in ("dr", "mr", "mrs", "ms")]
    company = (p.company or "").strip().lower()
    cwords = [t for t in TOKEN.findall(company) if t not in COMPANY_SUFFIXES]
    goal_toks = TOKEN.findall(scenario.goal.lower())
    if goal_toks and goal_toks[0] in _GOAL_VERBS:
        goal_toks = goal_toks[1:]
    goal = frozenset(c for t in goal_toks if (c := concept(t)) is not None and t != "up")
    profile: dict[str, float] = {}

    def add(text: str | None, weight: float) -> None:
        for c in concepts(text or ""):
            if profile.get(c, 0.0) < weight:
                profile[c] = weight

    add(p.notes, REL_NOTES)
    add(" ".join(p.tech_stack), REL_TECH)
    add(p.title, REL_TITLE)
    for w in TOKEN.findall((p.title or "").lower()):
        add(ROLE_CONCEPTS.get(w), REL_ROLE)
    add(p.industry, REL_INDUSTRY)
    # The prospect's own names say nothing about what they care about.
    for t in names + cwords:
        c = concept(t)
        if c is not None:
            profile.pop(c, None)
    first = names[0] if names else ""
    last = names[-1] if len(names) > 1 else ""
    company_word = cwords[0] if cwords else ""
    alts = []
    if first:
        alts.append(rf"(?:i'm|i am|my name is|this is)\s+{re.escape(first)}\b")
    if company_word:
        alts.append(
            rf"(?:we at|here at|our company,?|our team at|i work at)\s+(?:the\s+)?"
            rf"{re.escape(company_word)}\b"
        )
    writes_as = re.compile(r"\b(?:" + "|".join(alts) + ")") if alts else None
    return ScenarioInfo(
        first=first,
        last=last,
        company=company,
        company_word=cwords[0] if cwords else "",
        goal=goal,
        goal_kind=goal & _MEETING_KINDS,
        profile=profile,
        has_profile=bool(profile),
        writes_as=writes_as,
        writes_as_any=any_of(writes_as) if writes_as is not None else None,
        own=concepts(f"{first} {last} {company}"),
    )


# Words that frame a subject ("A question on", "An idea about", "How is X handling",
# "Quick note") and name no topic of their own.
_SUBJECT_FRAME = concepts(
    "question questions idea ideas thoughts thought handling about quick note"
)


def subject_concepts(email: EmailText, info: ScenarioInfo) -> set[str]:
    """The subject's topic words as concepts: less the reader's names and company, and
    the words that frame a subject."""
    return concepts_of_tokens(email.subject_tokens) - info.own - _SUBJECT_FRAME


@dataclass(slots=True)
class EmailText:
    subject: str
    body: str
    lower: str
    tokens: list[str]
    subject_tokens: list[str]
    counts: Counter[str]
    concepts: set[str]
    token_set: set[str]  # the subject's and the body's
    joined: str  # " subject tokens | body tokens ", for whole-word phrase tests
    sentences: list[Sentence]  # every sentence, greeting and sign-off included
    lines: list[str]
    greeting: bool
    signoff_at: int | None  # index in `lines` where the sign-off block starts
    prose: list[Sentence]  # sentences between the greeting and the sign-off
    prose_tokens: list[str]  # their tokens, in order
    english_share: float  # share of English function words
    foreign: tuple[str, float]  # the likeliest other language and its share


def parse_email(subject: str, body: str) -> EmailText:
    lower = body.lower()
    sents = sentences(body)
    tokens = [t for s in sents for t in s.tokens]
    subject_tokens = TOKEN.findall(subject.lower())
    counts = Counter(tokens)
    token_set = set(counts)
    token_set.update(subject_tokens)
    joined = f" {' '.join(subject_tokens)} | {' '.join(tokens)} "
    lines = [ln.strip() for ln in body.strip().splitlines() if ln.strip()]
    head = lines[0] if lines else ""
    greeting = (
        bool(lines)
        and len(head.split()) <= 6
        and bool(_GREETING.match(_HONORIFIC_DOT.sub(r"\1", head) if "." in head else head))
    )
    signoff_at: int | None = None
    for i in range(len(lines) - 1, max(len(lines) - 5, 0), -1):
        if len(lines[i].split()) <= 5 and _SIGNOFF.match(lines[i]):
            signoff_at = i
            break
    bare_name = len(lines) >= 3 and _NAME_LINE.match(lines[-1]) and len(lines[-1].split()) <= 4
    if signoff_at is None and bare_name and lines[-1][-1] not in ".!?":
        signoff_at = len(lines) - 1  # signed with a bare name
    # Prose: the sentences of the lines between greeting and sign-off.
    first = 1 if greeting else 0
    end = signoff_at if signoff_at is not None else len(lines)
    prose = [s for s in sents if first <= s.line < end]
    prose_tokens = [t for s in prose for t in s.tokens]
    all_concepts: set[str] = set().union(*(s.concepts for s in sents))
    en, lang, share = language_shares(counts, len(tokens)) if tokens else (0.0, "", 0.0)
    return EmailText(
        subject, body, lower, tokens, subject_tokens, counts, all_concepts, token_set, joined,
        sents, lines, greeting, signoff_at, prose, prose_tokens, en, (lang, share),
    )  # fmt: skip


# -- asks ---------------------------------------------------------------------------


def _carries_goal(s: Sentence, info: ScenarioInfo, strict: bool = False) -> bool:
    """Whether a sentence is about the goal: it names the kind of meeting (in a
    question, "Worth a quick chat?") or, `strict`, carries most of the goal's words."""
    if not info.goal:
        return False
    if not strict and info.goal_kind & s.concepts:
        return True
    return len(info.goal & s.concepts) >= max(1, round(CTA_GOAL_MATCH * len(info.goal)))


def asks(email: EmailText, info: ScenarioInfo) -> list[tuple[Sentence, bool, bool]]:
    """The sentences that ask the reader for something: (sentence, is a question,
    asks for the goal)."""
    out: list[tuple[Sentence, bool, bool]] = []
    # The pattern is an alternation of literal phrases: `in` tells whether one occurs
    # without entering the matcher at every character.
    imperatives = any(p in email.lower for p in ASK_IMPERATIVES)
    for s in email.prose:
        if not imperatives and "?" not in s.text and not (info.goal_kind & s.concepts):
            continue
        text = s.text.lower()
        question = text.rstrip().endswith("?")
        goal = _carries_goal(s, info, strict=not question)
        if question:
            # "And could you forward this…?", "Separately, would you…?": the opener
            # after a linking word.
            opener = _LINKING.sub("", text)
            asking = (
                goal or bool(ASK_WORDS.intersection(s.tokens)) or opener.startswith(_ASK_OPENERS)
            )
            if asking and (goal or not text.startswith(("does", "is "))):
                out.append((s, True, goal))
        elif (imperatives and _IMPERATIVE.search(text)) or (goal and text.startswith("please")):
            out.append((s, False, goal))
    return out


# -- weighted criteria ------------------------------------------------------------


Ask = tuple[Sentence, bool, bool]


def call_to_action(email: EmailText, info: ScenarioInfo, found: list[Ask]) -> tuple[float, str]:
    """`found`: the email's asks (`asks(email, info)`)."""
    if not email.body.strip():
        return 0.0, "empty body"
    if any(q and g for _, q, g in found):
        return CTA_ASKED, "asks for the goal"
    if any(g for _, _, g in found):
        return CTA_IMPERATIVE, "requests the goal without asking a question"
    stated = [
        s
        for s in email.prose
        if _carries_goal(s, info, strict=True) and not s.text.lower().startswith("goal")
    ]
    if stated:
        return CTA_STATED, "mentions the goal but does not ask for it"
    if _GOAL_LABEL.search(email.body):
        return CTA_LABEL, "only a 'Goal:' label, no call to action"
    if found or any(s.text.rstrip().endswith("?") for s in email.prose):
        return CTA_OTHER_QUESTION, "asks something, but not for the goal"
    return 0.0, "no call to action"


def profile_in(found: set[str] | frozenset[str], info: ScenarioInfo) -> float:
    return sum(w for c, w in info.profile.items() if c in found)


def personalisation(email: EmailText, info: ScenarioInfo) -> tuple[float, str]:
    toks = email.counts
    named = bool(info.first and info.first in toks) or bool(info.last and info.last in toks)
    parts: list[tuple[float, float, str]] = [(PERS_NAME, float(named), "name")]  # weight, credit
    if info.company_word:
        parts.append((PERS_COMPANY, float(info.company_word in toks), "company"))
    if info.has_profile:
        hits = len(email.concepts.intersection(info.profile))
        parts.append((PERS_CONTEXT, 1.0 if hits >= 2 else 0.5 if hits else 0.0, "their situation"))
    subj_toks = set(email.subject_tokens)
    subj_hit = bool(
        (info.first and info.first in subj_toks)
        or (info.last and info.last in subj_toks)
        or (info.company_word and info.company_word in subj_toks)
        or any(concept(t) in info.profile for t in subj_toks)
    )
    parts.append((PERS_SUBJECT, float(subj_hit), "subject"))
    score = sum(w * c for w, c, _ in parts) / sum(w for w, _, _ in parts)
    have = [n for _, c, n in parts if c > 0]
    miss = [n for _, c, n in parts if c == 0]
    reason = ("speaks to " + ", ".join(have)) if have else "nothing personal"
    return score, reason + ("; missing " + ", ".join(miss) if miss and have else "")


def concision(email: EmailText) -> tuple[float, str]:
    words = len(email.tokens)
    subject_words = len(email.subject.split())
    b = band(words, BODY_WORDS_BAND)
    s = band(subject_words, SUBJECT_WORDS_BAND) if subject_words else 0.0
    score = CONCISION_BODY_SHARE * b + (1.0 - CONCISION_BODY_SHARE) * s
    lo, hi = BODY_WORDS_BAND[1], BODY_WORDS_BAND[2]
    return score, f"body {words} words (best {lo}-{hi}), subject {subject_words} words"


def readability(email: EmailText) -> tuple[float, str]:
    if not email.lines:
        return 0.0, "empty body"
    prose = email.prose
    n_words = sum(len(s.text.split()) for s in prose)
    mean_words = n_words / len(prose) if prose else 0.0
    s_sent = band(mean_words, SENTENCE_WORDS_BAND)
    end = email.signoff_at if email.signoff_at is not None else len(email.lines)
    text_lines = email.lines[1 if email.greeting else 0 : end]
    prose_lines = [ln for ln in text_lines if ln[-1] in ".!?" and not _LIST_LINE.match(ln)]
    s_prose = len(prose_lines) / len(text_lines) if text_lines else 0.0
    n_par = len([p for p in re.split(r"\n\s*\n", email.body.strip()) if p.strip()])
    s_par = 1.0 if n_par >= 3 else 0.6 if n_par == 2 else 0.2
    signoff = email.signoff_at is not None and email.signoff_at > 0
    score = (
        READ_SENTENCES * s_sent
        + READ_PROSE * s_prose
        + READ_PARAGRAPHS * s_par
        + READ_GREETING * email.greeting
        + READ_SIGNOFF * signoff
    )
    notes = [f"{mean_words:.0f} words/sentence", f"{n_par} paragraphs"]
    if s_prose < 1.0:
        notes.append(f"{len(text_lines) - len(prose_lines)} list-like lines")
    notes.append("greeting" if email.greeting else "no greeting")
    notes.append("sign-off" if signoff else "no sign-off")
    return score, ", ".join(notes)


def language_shares(counts: Counter[str], n: int) -> tuple[float, str, float]:
    """(English function-word share, the likeliest other language, its share)."""
    keys = counts.keys()
    # The word list intersected with the keys, not the keys with the list: a frozenset
    # looks each key up, where a dict view would look up each of the list's words.
    en = sum(map(counts.__getitem__, EN_FUNCTION_WORDS.intersection(keys))) / n  # any order
    foreign_name, foreign = "", 0.0
    if not _ANY_FOREIGN.isdisjoint(keys):
        for lang, words in FOREIGN_FUNCTION_WORDS.items():
            share = sum(map(counts.__getitem__, words.intersection(keys))) / n
            if share > foreign:
                foreign_name, foreign = lang, share
    return en, foreign_name, foreign


def english(email: EmailText) -> tuple[float, str]:
    """1 for English, 0 for another language. Only evidence of another language
    lowers it: English fragments or word salad with few function words are
    sendability's business, not this gate's."""
    n = len(email.tokens)
    if not n:
        return (
            0.0,
            "empty body"
            if not email.body.strip()
            else "no words in a Latin, Greek or Cyrillic script",
        )
    en = email.english_share
    foreign_name, foreign = email.foreign
    reason = f"{en:.0%} English function words"
    if foreign <= ENGLISH_FLOOR:
        return 1.0, reason
    reason += f", {foreign:.0%} {foreign_name}"
    return clamp((en - foreign) / ENGLISH_SPAN), reason
