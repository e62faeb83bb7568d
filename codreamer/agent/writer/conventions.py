"""The conventions of an email around its argument: the reader's name in the greeting,
their title mid-sentence, and the goal's object in the ask.

Pure and memoised.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WS = re.compile(r"\s+")
_HONORIFICS = {"dr": "Dr.", "mr": "Mr", "mrs": "Mrs", "ms": "Ms", "mx": "Mx", "prof": "Professor"}

_GOAL_VERB = re.compile(
    r"^(?:secure|book|schedule|arrange|set\s+up|get|land|start|run|organi[sz]e|hold|plan|"
    r"propose|request|win|obtain|confirm|have)\s+(?=(?:a|an|the|one|two|three|\d)\b)",
    re.IGNORECASE,
)


_MEETING = re.compile(
    r"^(?:a|an)\s+(?:(?P<n>\d+)-minute\s+)?(?P<kind>[\w-]+\s+)?(?P<what>call|demo|meeting|chat)\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def goal_variants(obj: str) -> tuple[str, ...]:
    """Ways to say the goal's object that keep its facts (length, kind, audience):
    a goal shared by many prospects is not one stock phrase in every email."""
    m = _MEETING.match(obj)
    if not m:
        return (obj,)
    n, kind, what, rest = (
        m.group("n"),
        (m.group("kind") or "").strip(),
        m.group("what"),
        m.group("rest"),
    )
    out = [obj]
    kind_what = f"{kind} {what}" if kind else what
    if n:
        out += [
            f"{n} minutes on a {what}{rest}",
            f"a short {n}-minute {what}{rest}",
            f"a {n}-minute conversation{rest}",
            f"a {kind_what} ({n} minutes){rest}",
            f"a {what} of {n} minutes{rest}",
        ]
        if what in ("call", "chat", "meeting") and not rest.strip():
            out.append(f"{n} minutes to talk it through{rest}")
    elif kind:
        out += [f"a short {kind_what}{rest}", f"a quick {kind_what}{rest}"]
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=4096)
def goal_object(goal: str) -> str:
    """'Secure a 20-minute discovery call' -> 'a 20-minute discovery call' ('' if no match)."""
    g = _WS.sub(" ", goal).strip().rstrip(".!?")
    m = _GOAL_VERB.match(g)
    return g[m.end() :] if m else ""


_TITLE_ABBREV = {
    "sr.": "Senior",
    "jr.": "Junior",
    "asst.": "Assistant",
    "assoc.": "Associate",
    "mgr.": "Manager",
    "dir.": "Director",
    "exec.": "Executive",
    "vp.": "VP",
}


def role_title(title: str) -> str:
    """A title as said after "as": "VP, Claims Operations" -> "VP of Claims Operations"."""
    t = _WS.sub(" ", title).strip().rstrip(".,")
    if len(t) > 60:
        return ""
    head, sep, tail = t.partition(", ")
    if sep and head.split()[-1].upper() in (
        "VP",
        "SVP",
        "EVP",
        "AVP",
        "DIRECTOR",
        "HEAD",
        "MANAGER",
    ):
        t = f"{head} of {tail}"
    elif sep:
        t = head
    # mid-sentence, a title's common words read in lower case ("as data protection
    # officer"); acronyms and names keep theirs ("as VP of claims at ...")
    words = [_TITLE_ABBREV.get(w.lower(), w) for w in t.split()]
    if any("." in w for w in words):
        return " ".join(words)  # an abbreviation left: its case as written
    return " ".join(
        w if w.isupper() or any(c.isupper() for c in w[1:]) else w.lower() for w in words
    )


def greeting_name(name: str, formal: bool) -> str:
    """First name; formally, title and surname when the name carries a title (a
    stranger's gender is never guessed, so no title is made up)."""
    words = name.split()
    if not words:
        return name
    title = _HONORIFICS.get(words[0].rstrip(".").lower())
    if title and len(words) > 1:
        return (
            f"{title} {words[-1]}"
            if formal
            else (words[1] if len(words) > 2 else f"{title} {words[-1]}")
        )
    return words[0]
