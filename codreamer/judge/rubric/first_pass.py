"""A fast test of whether any of several word patterns occurs in a text.

The rubric's patterns are long alternations of phrases behind a word boundary,
`\\b(?:as we discussed|per our call|...)`. Python's `re` enters its matcher at every
position of the text to test the `\\b`, and at every word start tries every phrase;
on the judge's emails that is most of a judgement's time. `any_of` rewrites the
patterns into a `FirstPass` that reads far fewer positions:

- the phrases behind a `\\b` that start with a word character go under a non-word
  character, `\\W(?:a(?:s we discussed|...)|p(?:er our call|...)|...)`, searched in
  the text with a space in front: `re` then skips straight to spaces and punctuation
  (a word starts only after one, or at the text's start, now the space), and there
  compares one character per group;
- so do the phrases behind a `\\b` that start with a digit class (`\\b\\d+ of the`):
  a digit is a word character, so what goes before it is the same;
- phrases without a `\\b`, or starting with a non-word character, are grouped by
  their first character too (a `\\b` before a non-word character becomes a look back
  for a word character), which `re` also skips to;
- anything else is kept whole, as one more alternative.

Two cheaper ways to the same answer:

- `\\W` is a Unicode category test at every character of the text, half of a
  scan's time; on an ASCII text (nearly every email) it is exactly the class of
  ASCII non-word characters, which `re` tests with a bitmap;
- when every phrase searched in the text itself starts with a literal of at least
  three characters, a text holding none of them cannot match, and `str`'s substring
  search tells that without entering the matcher at every such first character.

It answers only whether something matches (what matched, and where, is read with
the original patterns afterwards), and it is exact for that: a leading group
`(?:A|B)rest` is spread into `Arest|Brest` (an optional one into `Arest|rest`), a
character is taken as a phrase's first only when it is a plain literal that must
occur, and nothing is dropped. Patterns with flags, back-references or look-behinds
are refused (a look-behind could see the added space).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_SPECIAL = frozenset("\\.^$*+?{}[]|()")
_QUANTIFIERS = ("?", "*", "+", "{")
_ESCAPED_LITERAL = frozenset("\\.^$*+?{}[]|()-'\"/ #&~")
_COUNTED = re.compile(r"\{(\d+)(?:,(\d*))?\}")
_WORD = re.compile(r"\w")
# Back-references, look-behinds and start anchors (which the added space would move).
_REFUSED = re.compile(r"\\[1-9]|\(\?P=|\(\?<[=!]|(?<!\[)\^|\\A")


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


def _tokens(s: str, i: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, character, group depth after it) of each token of `s` from s[i], an
    escape or a character class skipped whole."""
    depth = 0
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
        yield i, ch, depth
        i += 1


def _split(s: str) -> list[str]:
    """The alternatives of `s` at its top level."""
    out: list[str] = []
    start = 0
    for i, ch, depth in _tokens(s):
        if ch == "|" and depth == 0:
            out.append(s[start:i])
            start = i + 1
    out.append(s[start:])
    return out


def _close(s: str, i: int) -> int:
    """The index of the ')' that closes the '(' at s[i]."""
    for j, ch, depth in _tokens(s, i):
        if ch == ")" and depth == 0:
            return j
    raise ValueError(f"unbalanced group in {s[i : i + 40]!r}")


def _branches(alt: str, bound: bool = False) -> list[tuple[bool, str | None, str]]:
    """One alternative as (behind a word boundary, its first literal character or
    None when that is not plain, what follows that character or the whole)."""
    if alt.startswith(r"\b"):
        return _branches(alt[2:], True)
    if alt.startswith("(?:"):
        end = _close(alt, 0)
        rest = alt[end + 1 :]
        if rest.startswith("?") and rest[1:2] not in ("?", "+"):
            # (?:A)?rest: A then rest, or rest alone.
            group = alt[: end + 1]
            return _branches(group + rest[1:], bound) + _branches(rest[1:], bound)
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
    tail = alt[k:]
    if tail.startswith("+"):  # c+rest: c, then c*rest
        return [(bound, first, re.escape(first) + "*" + tail[1:])]
    if (m := _COUNTED.match(tail)) is not None and int(m.group(1)) >= 1:
        # c{n,m}rest with n >= 1: c, then c{n-1,m-1}rest.
        low = int(m.group(1)) - 1
        high = m.group(2)
        if high is None and m.group(0).count(",") == 0:
            counted = f"{{{low}}}"
        elif not high:
            counted = f"{{{low},}}"
        else:
            counted = f"{{{low},{int(high) - 1}}}"
        return [(bound, first, re.escape(first) + counted + tail[m.end() :])]
    if tail.startswith(_QUANTIFIERS):
        return [(bound, None, alt)]
    return [(bound, first, tail)]


# On an ASCII text `\W` matches exactly these (`re`'s Unicode `\w` holds no other
# ASCII character than letters, digits and "_").
_ASCII_NON_WORD = (
    "[" + re.escape("".join(chr(c) for c in range(128) if not _WORD.match(chr(c)))) + "]"
)
_MIN_LITERAL = 3  # shorter literals ("a", "in") occur in nearly every text


class FirstPass:
    """Whether any of the patterns `any_of` was given occurs in a text."""

    def __init__(
        self,
        after_space: re.Pattern[str] | None,
        plain: re.Pattern[str] | None,
        after_space_ascii: re.Pattern[str] | None = None,
        plain_literals: tuple[str, ...] | None = None,
    ):
        self._after_space = after_space  # searched in " " + text
        self._after_space_ascii = after_space_ascii or after_space  # the same, ASCII text
        self._plain = plain  # searched in the text
        self._plain_literals = plain_literals  # one of them is in any text `plain` matches

    def found(self, text: str) -> bool:
        rx = self._after_space_ascii if text.isascii() else self._after_space
        if rx is not None and rx.search(" " + text) is not None:
            return True
        if self._plain is None:
            return False
        lits = self._plain_literals
        if lits is not None and not any(lit in text for lit in lits):
            return False
        return self._plain.search(text) is not None


def any_of(*patterns: re.Pattern[str]) -> FirstPass:
    """A first pass that finds something in a text exactly when one of `patterns`
    does."""
    word_groups: dict[str, list[str]] = {}  # a word character behind \b -> the rests
    digit_first: list[str] = []  # \b then a digit class: the rests, from the class
    char_groups: dict[str, list[str]] = {}  # any other first character -> the rests
    whole: list[str] = []
    for rx in patterns:
        if rx.flags != re.UNICODE or _REFUSED.search(rx.pattern):
            raise ValueError(f"any_of takes plain patterns: {rx.pattern[:40]!r}")
        for alt in _split(rx.pattern):
            for bound, first, rest in _branches(alt):
                if first is None and bound and rest.startswith(r"\d"):
                    # A digit is a word character: \b before it is a non-word character
                    # (or the text's start) before it, as for a word's first letter.
                    digit_first.append(rest)
                elif first is None:
                    whole.append((r"\b" if bound else "") + rest)
                elif bound and _WORD.match(first):
                    word_groups.setdefault(first, []).append(rest)
                elif bound and first != "\n":
                    # \b before a non-word character: a word character just before it.
                    char_groups.setdefault(first, []).append(r"(?<=\w.)" + rest)
                elif bound:
                    whole.append(r"\b" + re.escape(first) + rest)
                else:
                    char_groups.setdefault(first, []).append(rest)
    after_alts = [_grouped(word_groups)] if word_groups else []
    after_alts += [f"(?:{r})" for r in digit_first]
    grouped = after_alts[0] if len(after_alts) == 1 else f"(?:{'|'.join(after_alts)})"
    after_space = re.compile(r"\W" + grouped) if after_alts else None
    after_space_ascii = re.compile(_ASCII_NON_WORD + grouped) if after_alts else None
    plain_parts = [_grouped(char_groups)] if char_groups else []
    plain_parts += [f"(?:{w})" for w in whole]
    plain = re.compile("|".join(plain_parts)) if plain_parts else None
    literals = [c + _literal_prefix(r) for c, rests in char_groups.items() for r in rests]
    usable = not whole and all(len(lit) >= _MIN_LITERAL for lit in literals)
    plain_literals = tuple(dict.fromkeys(literals)) if literals and usable else None
    return FirstPass(after_space, plain, after_space_ascii, plain_literals)


def _literal_prefix(rest: str) -> str:
    """The characters every match of `rest` starts with, read while they are plain
    literals that must occur ("" when `rest` has alternatives at its top level)."""
    if len(_split(rest)) > 1:
        return ""
    out = []
    i = 0
    while i < len(rest):
        ch = rest[i]
        if ch == "\\":
            if rest[i + 1 : i + 2] == "" or rest[i + 1] not in _ESCAPED_LITERAL:
                break
            ch, k = rest[i + 1], 2
        elif ch in _SPECIAL:
            break
        else:
            k = 1
        after = rest[i + k : i + k + 1]
        if after in ("?", "*", "{"):  # optional, or counted (maybe zero times)
            break
        out.append(ch)
        if after == "+":  # at least once: the character, and no further
            break
        i += k
    return "".join(out)


def _grouped(groups: dict[str, list[str]]) -> str:
    alts = "|".join(f"{re.escape(c)}(?:{'|'.join(r)})" for c, r in groups.items())
    return f"(?:{alts})"
