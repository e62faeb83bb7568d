"""First passes shared by criteria that read the same text of an email.

Deception and naturalness each scan the lower-case subject and body for phrases
(fake threads, urgency and guarantees; stock sales phrases), contradiction and
naturalness each the lower-case prose (social proof; notes for the graph's author,
definitions, duties). Most emails hold none of them, and a scan's cost is in reading the
text, not in the number of phrases: one `any_of` over the union reads each text
once, and a criterion reads its own patterns only where the union found something.
Exact: the union finds something in a text exactly when one of its patterns does.
"""

from __future__ import annotations

from dataclasses import dataclass

from codreamer.judge.rubric.first_pass import any_of
from codreamer.judge.rubric.flaws import _GUARANTEE, _THREAD_BODY, _URGENCY
from codreamer.judge.rubric.natural import _AUTHOR_NOTE, _DEFINITION, _DUTY, _STOCK
from codreamer.judge.rubric.semantic import _SOCIAL_PROOF
from codreamer.judge.rubric.text_criteria import EmailText

_SUBJECT_AND_BODY = any_of(_THREAD_BODY, _URGENCY, _GUARANTEE, _STOCK)
_PROSE = any_of(_SOCIAL_PROOF, _AUTHOR_NOTE, _DEFINITION, _DUTY)


@dataclass(frozen=True, slots=True)
class Screened:
    """What one scan of each shared text found: False means none of the patterns
    occurs there, so the criteria that read it skip their own scans."""

    subject_and_body: bool  # f"{subject}\n{body}".lower(): deceit or stock phrases
    prose: bool  # "\n".join(prose sentences).lower(): social proof, notes, definitions


def screen(email: EmailText) -> Screened:
    return Screened(
        _SUBJECT_AND_BODY.found(f"{email.subject}\n{email.body}".lower()),
        _PROSE.found("\n".join(s.text for s in email.prose).lower()),
    )
