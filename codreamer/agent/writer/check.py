"""The last look before an email leaves the writer: broken sentences.

`problems` names what is wrong with one sentence (a fragment with no finite verb,
a capitalised common word after "because" or a colon, a sentence that ends on a
connector, a doubled word, stray punctuation). `repair` fixes what can be fixed
without changing the meaning (case, spacing, punctuation); the realiser drops or
re-frames a sentence that is still broken. `broken_sentences` runs the detector
over a whole body (the benchmark uses it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from codreamer.agent.writer.grammar import has_finite_verb
from codreamer.agent.writer.text import sentences

_AFTER_LINK = re.compile(
    r"(?:\b(?:because|since|that|so|and|but|while|whereas|although|when|if|of|to|is|are|"
    r"means|as)\s+|:\s+)([A-Z][a-z]+)\b"
)
_DANGLING = re.compile(
    r"\b(?:and|or|but|because|the|a|an|of|to|with|for|that|which|so|as|by|from|than|"
    r"into|is|are|about|on|in|at|over|under|between|within|across|per|via|like)\s*[.?!:]$",
    re.IGNORECASE,
)
_SUBORDINATE_START = re.compile(
    r"^(?:which|because|since|although|though|whereas|while|as well as|such as|when|whenever|"
    r"if|unless|until|after|before|where)\b",
    re.I,
)
_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)
_STRAY = re.compile(r"\s[,.;:?!]|[,;:]{2,}|[,;:][.?!]|\.\.(?!\.)|\(\s*\)|^\W")
# Words that are capitalised wherever they stand.
_ALWAYS_CAPS = frozenset({"I", "I'm", "I'd", "I'll", "I've"})


# A job title's "of" ("VP of Membership", "Head of Clinical Operations"): the word
# after it is part of the title.
TITLE_OF = re.compile(
    r"\b(?:VP|SVP|EVP|AVP|Vice President|President|Head|Director|Chief|Manager|Dean|"
    r"Officer|Secretary|Minister|Commissioner|Superintendent) of [A-Z][a-z]+$"
)


def split_sentences(text: str) -> list[str]:
    """Sentences, not split after an abbreviation ("Dr. Okafor", "(e.g. TMT, Fleetio)")."""
    return sentences(text)


def problems(sentence: str, proper: Callable[[str], bool] = lambda w: False) -> list[str]:
    """What is wrong with one sentence of prose ([] when nothing is). `proper` says
    whether a capitalised word is a name (kept capitalised anywhere)."""
    s = sentence.strip()
    out: list[str] = []
    if not s:
        return ["empty"]
    if s[0].islower():
        out.append("starts in lower case")
    for m in _AFTER_LINK.finditer(s):
        w = m.group(1)
        if TITLE_OF.search(s, 0, m.end()):
            continue  # "your VP of Membership": a job title keeps its capitals
        if w not in _ALWAYS_CAPS and not proper(w):
            out.append(f"capitalised '{w}' mid-sentence")
            break
    if _DANGLING.search(s):
        out.append("ends on a connector")
    if _SUBORDINATE_START.match(s) and "," not in s and not s.endswith("?"):
        out.append("subordinate clause alone")
    body = s.rstrip(".!?")
    if not s.endswith("?") and not has_finite_verb(body):
        out.append("fragment: no finite verb")
    d = _DOUBLED.search(s)
    if d and d.group(1).lower() not in ("that", "had", "very"):
        out.append(f"doubled word '{d.group(1)}'")
    if _STRAY.search(s):
        out.append("stray punctuation")
    if s.count("(") != s.count(")") or s.count('"') % 2:
        out.append("unbalanced brackets or quotes")
    if s[-1] not in ".!?":
        out.append("no end punctuation")
    return out


def _lower_word(m: re.Match[str], proper: Callable[[str], bool]) -> str:
    w = m.group(1)
    if w in _ALWAYS_CAPS or proper(w):
        return m.group(0)
    return m.group(0)[: m.start(1) - m.start(0)] + w[0].lower() + w[1:]


@lru_cache(maxsize=65536)
def tidy(sentence: str) -> str:
    """Spacing and punctuation: one space, none before punctuation, one end mark."""
    s = re.sub(r"\s+", " ", sentence).strip()
    s = re.sub(r"\s+([,.;:?!])", r"\1", s)
    s = re.sub(r"([,;:])[,;:]+", r"\1", s)
    s = re.sub(r"[,;:]+([.?!])", r"\1", s)
    s = re.sub(r"\.{2}(?!\.)", ".", s)
    if s and s[-1] not in ".!?":
        s += "."
    return s[:1].upper() + s[1:] if s else s


def repair(sentence: str, proper: Callable[[str], bool] = lambda w: False) -> str:
    """Fix what can be fixed without changing a word: case after a link word or a
    colon, spacing and punctuation."""
    s = tidy(sentence)
    return _AFTER_LINK.sub(lambda m: _lower_word(m, proper), s)


def broken_sentences(
    body: str, proper: Callable[[str], bool] = lambda w: False
) -> list[tuple[str, list[str]]]:
    """Every broken sentence of an email body, greeting and signature excluded
    (the lines before the first blank line and from the sign-off on)."""
    paras = [p for p in body.strip().split("\n\n") if p.strip()]
    if len(paras) >= 3:
        paras = paras[1:-1]  # greeting; sign-off and signature
    out = []
    for p in paras:
        for s in split_sentences(" ".join(p.split())):
            found = problems(s, proper)
            if found:
                out.append((s, found))
    return out
