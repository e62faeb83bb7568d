"""Telling the reader their own business, by its wording (half of `own_job`).

Readers mark an email down hard when it describes their own company or role back
to them: "Northfield Dairy is a dairy distributor...", "As VP Operations you're
responsible for...", "your job is to...". Round 11's packet S (tuning graphs,
three blind readers) graded such emails 2.6 against 4.5 for the same prospect's
email without it. The meaning half (`semantic.own_job`: a sentence close to the
graph's Customer Job node) misses most of them: the sentence is about the
reader's company or title, which the graph's own words need not mention.

Two wordings, both about the reader rather than any graph:
- the role: "as <a title>, you're / you run / your job ...", "your role is",
  "you're the one who", "as you know";
- the company: a sentence whose subject is the reader's company and whose verb
  says what a company does ("<Company> is a", "<Company> makes / sells / runs").
A hedged guess ("as a superintendent you probably hear...") is a question about
the reader, which readers grade well, and is not counted.
"""

from __future__ import annotations

import re
from functools import lru_cache

from codreamer.judge.rubric.first_pass import any_of

_I = re.IGNORECASE
_TITLE = (
    r"(?:vp|svp|evp|vice president|director|head|manager|lead|leader|chief|officer|"
    r"cfo|ceo|coo|cto|cio|ciso|cmo|gc|counsel|founder|owner|president|engineer|scientist|"
    r"analyst|specialist|coordinator|supervisor|superintendent|administrator|partner)"
)
_HEDGE = r"(?!\s+(?:probably|may|might|likely|could|would|possibly|perhaps)\b)"
_ROLE_SOURCE = (
    r"\bas (?:the |a |an |your )?(?:[\w&/'-]+ ){0,5}?"
    + _TITLE
    # Up to a few words after the title ("at Kite Insurance"), and a vocative name.
    + r"\b[^.;!?,]{0,30}?,?(?: [A-Z][a-z]+,)? "
    r"(?:you(?:'re| are| have| own| run| spend| staff| oversee| define| manage| handle|"
    r" know| need| must| carry)?\b" + _HEDGE + r"|your (?:job|role|day|week|remit)\b)"
    r"|\byour (?:job|role|remit) (?:is|as|comes down)\b"
    r"|\byou(?:'re| are) (?:the one (?:who|that|deciding|responsible)"
    r"|responsible for|in charge of)\b"
    r"|\bas you(?:'ll)? (?:know|well know)\b"
    r"|\bat the heart of your (?:job|role|work)\b"
)
_ROLE = re.compile(_ROLE_SOURCE, _I)
# Fast forms for an ASCII text (nearly every email), searched in its lower case: there
# `re.I` matches a letter exactly when the lower-case letter matches it lower-cased
# (no other character folds to an ASCII letter's case), so the same spans match
# without IGNORECASE, and a pattern without flags can have a first pass (`any_of`),
# which most emails, telling the reader nothing of their own, stop at.
_ROLE_LOWER = re.compile(_ROLE_SOURCE.replace("[A-Z][a-z]+", "[a-z][a-z]+"))
_ANY_ROLE = any_of(_ROLE_LOWER)
_COMPANY_VERBS = (
    r"(?:is an?|is one of|makes|builds|sells|runs|generates|buys|treats|represents|"
    r"supports|serves|operates|provides|delivers|moves|designs|develops|offers|"
    r"manufactures|ships|distributes|produces|creates|specialises|specializes|helps)"
)


def _company_source(names: list[str], start: str) -> str:
    return (
        start + r"(?:at |since |because )?(?:" + "|".join(names) + r")"
        r"(?:[\w&' ]{0,20}?)? " + _COMPANY_VERBS + r"\b"
    )


@lru_cache(maxsize=1024)
def _company_pattern(company: str, word: str) -> re.Pattern[str] | None:
    names = [re.escape(n) for n in dict.fromkeys((company, word)) if n]
    if not names:
        return None
    return re.compile(_company_source(names, r"(?:^|[.!?]\s+)"), _I)


# What follows the reader's company at a sentence's start when the sentence says what
# the company does ("Northfield Dairy's fleet is a ..."), on a lower-case ASCII text.
# Fixed, so a list of a thousand leads at a thousand companies compiles nothing per
# company (a pattern per company took 4 ms to compile, more than judging the email).
_AFTER_NAME = re.compile(r"(?:[\w&' ]{0,20}?)? " + _COMPANY_VERBS + r"\b")
_LEADS = ("at ", "since ", "because ")


def _company_spans(low: str, names: tuple[str, ...]) -> list[tuple[int, int]]:
    """Spans of `_company_pattern`'s matches in the lower-case ASCII text `low`, for the
    lower-case `names` (the company, then its word), found by the names' positions."""
    spans: dict[int, int] = {}
    for name in names:
        i = low.find(name)
        while i != -1:
            start = i
            for lead in _LEADS:
                if i >= len(lead) and low.startswith(lead, i - len(lead)):
                    start = i - len(lead)
                    break
            j = start
            while j > 0 and low[j - 1].isspace():
                j -= 1
            at_sentence = start == 0 or (j < start and j > 0 and low[j - 1] in ".!?")
            if (
                at_sentence
                and (start not in spans)
                and (m := _AFTER_NAME.match(low, i + len(name)))
            ):
                spans[start] = m.end()
            i = low.find(name, i + 1)
    return sorted(spans.items())


def told_own_business(prose: str, company: str, company_word: str) -> list[str]:
    """The phrases of `prose` that tell the reader their own role or company's
    business (`company`: the reader's company, lower case; `company_word` its most
    telling word)."""
    if not (prose.isascii() and company.isascii() and company_word.isascii()):
        found = [m.group(0).strip() for m in _ROLE.finditer(prose)]
        pattern = _company_pattern(company, company_word)
        if pattern is not None:
            found += [m.group(0).strip(" .!?") for m in pattern.finditer(prose)]
        return found
    # The same matches, read in the lower case and cut from the prose at their spans.
    low = prose.lower()
    spans = [m.span() for m in _ROLE_LOWER.finditer(low)] if _ANY_ROLE.found(low) else []
    found = [prose[a:b].strip() for a, b in spans]
    names = tuple(n.lower() for n in dict.fromkeys((company, company_word)) if n)
    found += [prose[a:b].strip(" .!?") for a, b in _company_spans(low, names)]
    return found
