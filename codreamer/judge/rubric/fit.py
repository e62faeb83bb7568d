"""The rubric's `fit` criterion (DESIGN §4): is the email pitched at its reader?

The same facts land differently on a chief executive and on an engineer: a senior
reader gives a cold email a few seconds (short, the outcome first, a formal
register in a formal industry); a practitioner reads further and wants to know how
it works. Three parts, each measured on the text of any email (template or LLM):

    length    body words against the band for the reader's seniority
    register  the greeting's formality against what the reader expects
              ("Dear …" in a regulated industry or to a non-technical executive;
              "Hi …" to technical people, managers and individual contributors)
    frame     the share of the email's framing words that speak of what goes
              wrong, what changes, or how it works, weighted by what the reader's
              function (and seniority) reads for

A part the prospect's title and industry say nothing about is not scored; with
no title at all the whole criterion is not scored. Numbers are in
`codreamer.judge.rubric.bands`; who the reader is comes from `codreamer.agent.reader`,
the same view the embedded policy learns its styles against.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from codreamer.agent.reader import Reader
from codreamer.judge.rubric.bands import (
    FIT_FRAME,
    FIT_FRAME_NONE,
    FIT_FRAME_PREFS,
    FIT_LENGTH,
    FIT_REGISTER,
    FIT_REGISTER_MISMATCH,
    FIT_REGISTER_NONE,
    FIT_WORDS_BAND,
)
from codreamer.judge.rubric.text_criteria import EmailText, band
from codreamer.judge.rubric.words import FRAME_STEMS

FRAMES = tuple(FRAME_STEMS)
_frame_of: dict[str, str | None] = {}  # token -> its frame (memo; bounded by the vocabulary)


def frame_of(token: str) -> str | None:
    hit = _frame_of.get(token, "")
    if hit == "":
        hit = None
        if len(token) > 2:
            for frame, stems in FRAME_STEMS.items():
                if token.startswith(stems):
                    hit = frame
                    break
        if len(_frame_of) > 100_000:
            _frame_of.clear()
        _frame_of[token] = hit
    return hit


def frame_shares(email: EmailText) -> dict[str, float]:
    """Share of the prose's framing words in each frame (empty when there are none)."""
    tokens = email.prose_tokens
    # The prose's words looked up at once (the memo read inline: a call per word
    # costs more, and one without a default less), word by word when one is unseen,
    # and counted in one pass.
    try:
        frames = list(map(_frame_of.__getitem__, tokens))
    except KeyError:
        frames = [frame_of(t) for t in tokens]
    found = Counter(frames)
    counts = {f: found[f] for f in FRAMES}
    n = sum(counts.values())
    return {f: c / n for f, c in counts.items()} if n else {}


@lru_cache(maxsize=1024)
def frame_prefs(who: Reader) -> dict[str, float] | None:
    """What the reader's functions (and seniority) read for, once per kind of reader
    (the result is shared: read it, do not change it)."""
    rows = [FIT_FRAME_PREFS[f] for f in sorted(who.functions)]
    if who.seniority == "executive":
        rows.append(FIT_FRAME_PREFS["executive"])
    if not rows:
        return None
    return {f: sum(r[f] for r in rows) / len(rows) for f in FRAMES}


def greeting_register(email: EmailText) -> bool | None:
    """True for a formal greeting ("Dear …"), False for a peer one ("Hi …"), None otherwise."""
    if not email.greeting or not email.lines:
        return None
    head = email.lines[0].lower()
    if head.startswith(("dear", "good morning", "good afternoon", "good evening")):
        return True
    if head.startswith(("hi", "hey", "hello")):
        return False
    return None


def fit(email: EmailText, who: Reader | None) -> tuple[float, str] | None:
    """The score and its reason; None when nothing is known of the reader."""
    if who is None or who.seniority is None:
        return None
    parts: list[tuple[float, float]] = []
    words = len(email.tokens)
    b = FIT_WORDS_BAND[who.seniority]
    parts.append((FIT_LENGTH, band(words, b)))
    why = [f"{words} words for a{'n' if who.seniority[0] in 'aeiou' else ''} "
           f"{who.seniority} (best {b[1]}-{b[2]})"]  # fmt: skip
    expected = who.formal
    if expected is not None:
        got = greeting_register(email)
        r = FIT_REGISTER_NONE if got is None else 1.0 if got == expected else FIT_REGISTER_MISMATCH
        parts.append((FIT_REGISTER, r))
        want = "formal" if expected else "peer"
        said = "no clear greeting" if got is None else ("formal" if got else "peer")
        why.append(f"{said} register (expects {want})")
    prefs = frame_prefs(who)
    if prefs is not None:
        shares = frame_shares(email)
        if shares:
            f = sum(prefs[k] * v for k, v in shares.items())
            top = max(shares, key=shares.__getitem__)
            wants = max(prefs, key=prefs.__getitem__)
            why.append(f"frames {top} {shares[top]:.0%} (reads for {wants})")
        else:
            f = FIT_FRAME_NONE
            why.append("no framing words")
        parts.append((FIT_FRAME, f))
    wsum = sum(w for w, _ in parts)
    score = sum(w * v for w, v in parts) / wsum
    return score, "; ".join(why)
