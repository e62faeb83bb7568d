"""Another place's rules: an email that cites one US state's law or rules to a reader
whose notes place them in another state.

Blind readers (round 15) graded 1 of 5 every email that cited "Washington's PRA" to
a Texas or a California clerk: "cites the wrong law, credibility-destroying". Graphs
written for one market often hold such state-specific facts; which state a reader is
in, the seller's notes on them say, when anything does. Only a sentence about rules
(a law, an act, a regulation, a court, a penalty, a requirement) is read, and only
when the email names none of the reader's states: "States like Texas, Ohio and
Georgia use different forms" names places, not a rule for the reader.

Pure.
"""

from __future__ import annotations

import re

US_STATES = (
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut",
    "Delaware", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa",
    "Kansas", "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan",
    "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada",
    "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina",
    "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island",
    "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont", "Virginia",
    "Washington", "West Virginia", "Wisconsin", "Wyoming",
)  # fmt: skip
# Longest first, so "West Virginia" is one state, not Virginia.
_STATE = re.compile(r"\b(" + "|".join(sorted(US_STATES, key=len, reverse=True)) + r")\b")
_RULES = re.compile(
    r"\b(?:laws?|acts?|rules?|regulations?|regulators?|statutes?|codes?|courts?|"
    r"penalt(?:y|ies)|fines?|mandates?|requires?|required|requirements?|deadlines?|"
    r"compliance|licen[cs]es?|permits?)\b|\b[A-Z]{2,5}\b(?=[^.]{0,60}\b(?:lets|allows|"
    r"requires|awards?)\b)",
    re.IGNORECASE,
)
COST = 0.6  # as a fact stated otherwise: the reader stops trusting the rest


def states_in(text: str) -> set[str]:
    return set(_STATE.findall(text or ""))


def other_state_rule(sentences: list[str], reader_text: str) -> str | None:
    """The first sentence that cites another state's rules to this reader, or None.
    `reader_text`: what the seller knows of the reader (notes, company, title,
    industry); with no state in it, nothing is read."""
    theirs = states_in(reader_text)
    if not theirs:
        return None
    named = set()
    hit = None
    for s in sentences:
        here = states_in(s)
        named |= here
        if hit is None and here - theirs and _RULES.search(s):
            hit = s
    if hit is None or named & theirs:
        return None
    return hit
