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

_I = re.IGNORECASE
_TITLE = (
    r"(?:vp|svp|evp|vice president|director|head|manager|lead|leader|chief|officer|"
    r"cfo|ceo|coo|cto|cio|ciso|cmo|gc|counsel|founder|owner|president|engineer|scientist|"
    r"analyst|specialist|coordinator|supervisor|superintendent|administrator|partner)"
)
_HEDGE = r"(?!\s+(?:probably|may|might|likely|could|would|possibly|perhaps)\b)"
_ROLE = re.compile(
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
    r"|\bat the heart of your (?:job|role|work)\b",
    _I,
)
_COMPANY_VERBS = (
    r"(?:is an?|is one of|makes|builds|sells|runs|generates|buys|treats|represents|"
    r"supports|serves|operates|provides|delivers|moves|designs|develops|offers|"
    r"manufactures|ships|distributes|produces|creates|specialises|specializes|helps)"
)


@lru_cache(maxsize=1024)
def _company_pattern(company: str, word: str) -> re.Pattern[str] | None:
    names = [re.escape(n) for n in dict.fromkeys((company, word)) if n]
    if not names:
        return None
    return re.compile(
        r"(?:^|[.!?]\s+)(?:at |since |because )?(?:" + "|".join(names) + r")"
        r"(?:[\w&' ]{0,20}?)? " + _COMPANY_VERBS + r"\b",
        _I,
    )


def told_own_business(prose: str, company: str, company_word: str) -> list[str]:
    """The phrases of `prose` that tell the reader their own role or company's
    business (`company`: the reader's company, lower case; `company_word` its most
    telling word)."""
    found = [m.group(0).strip() for m in _ROLE.finditer(prose)]
    pattern = _company_pattern(company, company_word)
    if pattern is not None:
        found += [m.group(0).strip(" .!?") for m in pattern.finditer(prose)]
    return found
