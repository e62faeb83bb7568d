"""Text analysis the rubric shares: tokens, a light stemmer, synonym concepts, sentences.

Grounding "by meaning" without a model: every content word is stemmed (a small
suffix stripper, deterministic and memoised per word) and mapped to a concept
(synonym sets in `codreamer.judge.rubric.words`), so "alerts the dispatcher" and
"pings dispatch" share the concepts `alert` and `dispatch`. It is fast enough
for thousands of emails a second and needs nothing installed; what it cannot
see (a paraphrase with no shared concept) is written in the README.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from codreamer.judge.rubric.words import EN_FUNCTION_WORDS, GENERIC_WORDS, SYNONYM_SETS

# Letters (Latin with accents, Greek, Cyrillic) and digits; an explicit class is
# about twice as fast as `\w` and the judge runs thousands of times a second.
TOKEN = re.compile(r"[a-z0-9\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]+")

# (suffix, replacement), first match wins; the stem keeps at least 3 letters.
_STEP2 = (
    ("ational", "ate"), ("ating", ""), ("ation", ""), ("ated", ""), ("ator", ""), ("ate", ""),
    ("ition", ""), ("ments", ""), ("ment", ""), ("ness", ""), ("ingly", ""), ("ing", ""),
    ("edly", ""), ("ed", ""), ("ers", ""), ("er", ""), ("ly", ""), ("ize", ""), ("ise", ""),
    ("able", ""), ("ible", ""),
)  # fmt: skip
_STEMS: dict[str, str] = {}
_MAX_STEMS = 200_000


def stem(word: str) -> str:
    """A light, deterministic suffix stripper ("alerts", "alerted", "alerting" -> "alert")."""
    hit = _STEMS.get(word)
    if hit is not None:
        return hit
    w = word
    if len(w) > 3 and not w.isdigit():
        if w.endswith("sses"):
            w = w[:-2]
        elif w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        for suffix, rep in _STEP2:
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)] + rep
                break
        if len(w) >= 5 and w.endswith("e"):
            w = w[:-1]
        if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "aeiouls":
            w = w[:-1]  # "planned" -> "plann" -> "plan"
    if len(_STEMS) >= _MAX_STEMS:
        _STEMS.clear()
    _STEMS[word] = w
    return w


def stems(words: list[str]) -> set[str]:
    """The stems of these words: `stem` of each, with its memo read inline (most
    words are met again, and a call per word costs more than the lookup), all at
    once while every word has been seen."""
    try:
        return set(map(_STEMS.__getitem__, words))
    except KeyError:
        known = _STEMS.get
        return {known(w) or stem(w) for w in words}


def _build_concepts() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in SYNONYM_SETS:
        words = group.split()
        head = stem(words[0])
        for w in words:
            out.setdefault(stem(w), head)
    return out


CONCEPT_OF: dict[str, str] = _build_concepts()
_GENERIC = frozenset(stem(w) for w in GENERIC_WORDS)
_CONCEPTS: dict[str, str | None] = {}


def concept(token: str) -> str | None:
    """The concept of one lower-case token, or None for function and generic words."""
    hit = _CONCEPTS.get(token, "")
    if hit != "":
        return hit
    c: str | None
    if len(token) < 2 or token in EN_FUNCTION_WORDS:
        c = None
    else:
        s = stem(token)
        c = None if s in _GENERIC else CONCEPT_OF.get(s, s)
    if len(_CONCEPTS) >= _MAX_STEMS:
        _CONCEPTS.clear()
    _CONCEPTS[token] = c
    return c


def concepts(text: str) -> frozenset[str]:
    """The concepts of a text (content words, stemmed, synonyms merged)."""
    return frozenset(c for t in TOKEN.findall(text.lower()) if (c := concept(t)) is not None)


def concepts_of_tokens(tokens: list[str]) -> set[str]:
    known = _CONCEPTS
    out: set[str] = set()
    for t in tokens:
        c = known.get(t, "")
        if c == "":
            c = concept(t)
        if c is not None:
            out.add(c)
    return out


@dataclass(slots=True)
class Sentence:
    text: str
    tokens: list[str]
    concepts: set[str]
    para: int  # paragraph index
    line: int  # index among the body's non-blank lines


_ABBREVIATIONS = frozenset(
    ("dr.", "mr.", "ms.", "mrs.", "prof.", "st.", "vs.", "e.g.", "i.e.", "etc.", "inc.", "ltd.")
)
_UNIT_ABBREVIATIONS = frozenset(
    ("in.", "ft.", "yd.", "mi.", "lb.", "lbs.", "oz.", "sq.", "no.", "approx.", "min.", "hr.")
)
_AFTER_NUMBER = re.compile(r"\d\S*\s+\S+$")  # "0.0008 in.": the unit after a figure
_ITEM_NUMBER = re.compile(r"\d{1,2}\.")
# An item of a list, by its marker ("- ", "• ", "2. "): it needs no end mark, and a
# label before its colon is a heading, not a template's lead-in.
LIST_ITEM = re.compile(r"(?:[-•*–—▪]|\d{1,2}[.)])\s")
_DOTTED = re.compile(r"(?:^|\s)(?:[A-Za-z]\.){2,}$")  # a.m., p.m., U.S.
# The whitespace after an end mark: `(?<=[.!?])\s+`, written to start with the space
# itself so that `re` skips to candidate characters instead of trying every position
# (same matches: a space whose previous character is an end mark, and the run after).
_LINE_SPLIT = re.compile(r"\s(?<=[.!?]\s)\s*")


def sentences(body: str) -> list[Sentence]:
    """The body's sentences in order (each line is split at end marks, never across
    lines; "Dr. Hoffmann" stays one sentence), with their concepts."""
    out: list[Sentence] = []
    lookup = _CONCEPTS.__getitem__
    para = 0
    line_no = 0
    blank = False
    for raw in body.strip().splitlines():
        line = raw.strip()
        if not line:
            blank = True
            continue
        if blank:
            para += 1
            blank = False
        if "." in line or "!" in line or "?" in line:
            merged: list[str] = []
            for part in _LINE_SPLIT.split(line):
                if (
                    merged
                    and (
                        merged[-1].rsplit(None, 1)[-1].lower().lstrip("([\"'“‘")
                        in _ABBREVIATIONS  # "(e.g. high school 7:30, ...)" too
                        # "2. Each near miss ...": a numbered item's number
                        or _ITEM_NUMBER.fullmatch(merged[-1]) is not None
                        # "from 8 to 11 a.m. and many calls ...": a dotted abbreviation
                        # followed by a lower-case word ends no sentence
                        or (part[:1].islower() and _DOTTED.search(merged[-1]) is not None)
                        # "0.0008 in. out of tolerance": a unit's abbreviation after a
                        # figure, then a lower-case word, ends no sentence
                        or (
                            part[:1].islower()
                            and _AFTER_NUMBER.search(merged[-1]) is not None
                            and merged[-1].rsplit(None, 1)[-1].lower() in _UNIT_ABBREVIATIONS
                        )
                    )
                ):
                    merged[-1] = f"{merged[-1]} {part}"
                else:
                    merged.append(part)
        else:
            merged = [line]
        for text in merged:
            toks = TOKEN.findall(text.lower())
            # The memo read without a default (a call with one argument costs less, and
            # nearly every word has been seen); a word not seen before raises, and the
            # sentence's concepts are worked out word by word, once.
            try:
                seen = set(map(lookup, toks))
            except KeyError:
                cs = concepts_of_tokens(toks)
            else:
                seen.discard(None)  # function and generic words (concepts are non-empty)
                cs = cast("set[str]", seen)
            out.append(Sentence(text, toks, cs, para, line_no))
        line_no += 1
    return out


class PhraseSet:
    """Named groups of phrases, matched as whole words on token strings. Indexed by
    each phrase's longest word (the likeliest to be rare), so a text costs one set
    intersection plus a substring test for the few phrases whose key word occurs
    (much faster than one big alternation)."""

    def __init__(self, groups: dict[str, tuple[str, ...]]) -> None:
        self.index: dict[str, list[tuple[str, str]]] = {}
        for group, phrases in groups.items():
            for phrase in phrases:
                toks = TOKEN.findall(phrase.lower())
                if toks:
                    key = max(toks, key=len)
                    self.index.setdefault(key, []).append((" ".join(toks), group))
        self._firsts = frozenset(self.index)

    def find(self, token_set: set[str] | frozenset[str], joined: str) -> dict[str, list[str]]:
        """Group -> phrases found; `joined` is " " + " ".join(tokens) + " "."""
        out: dict[str, list[str]] = {}
        for key in sorted(self._firsts & token_set):  # sorted: reasons are reproducible
            for phrase, group in self.index[key]:
                if phrase == key or f" {phrase} " in joined:
                    out.setdefault(group, []).append(phrase)
        return out
