"""A fast test of whether any of several word patterns occurs in a text.

The rubric's patterns are long alternations of phrases behind a word boundary,
`\\b(?:as we discussed|per our call|...)`, and Python's `re` tries every phrase at
every word start. `any_of` rewrites them into one pattern whose phrases are grouped
by their first character, `\\b(?:a(?:s we discussed|...)|p(?:er our call|...)|...)`,
so at a word start the engine compares one character per group and reads only the
phrases that can start there: a few times faster on an email that matches nothing,
which is most emails.

It answers only whether something matches (what matched, and where, is read with
the original patterns afterwards), and it is exact for that: a leading group
`(?:A|B)rest` is spread into `Arest|Brest`, and a phrase is moved under its first
character only when that character is a plain literal, not quantified; anything
else is kept whole, as one more alternative. Patterns with flags or back-references
are refused.
"""

from __future__ import annotations

import re

_SPECIAL = frozenset("\\.^$*+?{}[]|()")
_QUANTIFIERS = ("?", "*", "+", "{")
_ESCAPED_LITERAL = frozenset("\\.^$*+?{}[]|()-'\"/ #&~")


def _skip_class(s: str, i: int) -> int:
    """The index after the character class that starts at s[i] == '['."""
    j = i + 1
    if j < len(s) and s[j] == "^":
        j += 1
    if j < len(s) and s[j] == "]":
        j += 1
    while s[j] != "]":
        j += 2 if s[j] == "\\" else 1
    return j + 1


def _split(s: str) -> list[str]:
    """The alternatives of `s` at its top level."""
    out: list[str] = []
    depth = start = i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = _skip_class(s, i)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(s[start:i])
            start = i + 1
        i += 1
    out.append(s[start:])
    return out


def _close(s: str, i: int) -> int:
    """The index of the ')' that closes the '(' at s[i]."""
    depth = 0
    while True:
        ch = s[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = _skip_class(s, i)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1


def _branches(alt: str, bound: bool = False) -> list[tuple[bool, str | None, str]]:
    """One alternative as (behind a word boundary, its first literal character or
    None when that is not plain, what follows that character or the whole)."""
    if alt.startswith(r"\b"):
        return _branches(alt[2:], True)
    if alt.startswith("(?:"):
        end = _close(alt, 0)
        rest = alt[end + 1 :]
        if rest.startswith(_QUANTIFIERS):
            return [(bound, None, alt)]
        return [b for inner in _split(alt[3:end]) for b in _branches(inner + rest, bound)]
    if not alt:
        return [(bound, None, alt)]
    if alt[0] == "\\":
        if len(alt) < 2 or alt[1] not in _ESCAPED_LITERAL:
            return [(bound, None, alt)]
        first, k = alt[1], 2
    elif alt[0] in _SPECIAL:
        return [(bound, None, alt)]
    else:
        first, k = alt[0], 1
    if alt[k:].startswith(_QUANTIFIERS):
        return [(bound, None, alt)]
    return [(bound, first, alt[k:])]


def any_of(*patterns: re.Pattern[str]) -> re.Pattern[str]:
    """A pattern that `search`es a text successfully exactly when one of `patterns`
    does (its match itself means nothing)."""
    bound_groups: dict[str, list[str]] = {}  # first character -> the rests behind \b
    free_groups: dict[str, list[str]] = {}  # the same for phrases with no \b before
    whole: list[str] = []
    for rx in patterns:
        if rx.flags != re.UNICODE or re.search(r"\\[1-9]|\(\?P=", rx.pattern):
            raise ValueError(f"any_of takes plain patterns: {rx.pattern[:40]!r}")
        for alt in _split(rx.pattern):
            for bound, first, rest in _branches(alt):
                if first is not None:
                    (bound_groups if bound else free_groups).setdefault(first, []).append(rest)
                else:
                    whole.append((r"\b" if bound else "") + rest)
    parts = [_grouped(bound_groups, r"\b"), _grouped(free_groups, "")]
    parts += [f"(?:{w})" for w in whole]
    return re.compile("|".join(p for p in parts if p))


def _grouped(groups: dict[str, list[str]], before: str) -> str:
    if not groups:
        return ""
    alts = "|".join(f"{re.escape(c)}(?:{'|'.join(r)})" for c, r in groups.items())
    return f"{before}(?:{alts})"
