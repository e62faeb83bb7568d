"""Deception and tone (codreamer/judge/rubric/flaws.py): families of wording, each
caught in forms the corpus had not shown, and near misses that must not be."""

from __future__ import annotations

import pytest

from codreamer.judge.rubric import RubricJudge
from codreamer.models import FinalEmail, Prospect, Scenario

SCENARIO = Scenario(
    prospect=Prospect(name="Luis Ortega", title="EHS Director", company="Barrow & Finch"),
    goal="Book a 20-minute call",
)
JUDGE = RubricJudge()

BODY = (
    "Hi Luis,\n\nA reversing skid steer and a laborer on foot in the same blind spot is "
    "the risk on a tight hospital site. Groundwire tags alert the worker and the operator "
    "before contact.\n\n{extra}Would a 20-minute call next week work?\n\nBest,\nMarcus"
)


def _email(subject: str = "Blind spots on the hospital site", extra: str = "") -> FinalEmail:
    return FinalEmail(subject=subject, body=BODY.format(extra=extra), citations=[])


def _deception(email: FinalEmail) -> str:
    return JUDGE.judge(email, SCENARIO).criteria["deception"].reason


def _tone(email: FinalEmail) -> tuple[float, str]:
    c = JUDGE.judge(email, SCENARIO).criteria["tone"]
    return c.score, c.reason


@pytest.mark.parametrize(
    "subject",
    [
        "OSHA complaint – Barrow & Finch hospital project",
        "Your $1.2M payment has been released",
        "Legal hold notice: site records",
        "You've been nominated for a safety award",
        "Your bond rating is under review",
        "Contract renewal update required",
        # Round 10's adversarial writer: a system's notice, news the seller cannot have.
        "Updated invitation: FY26 budget review @ Tue 10:00 (Patricia Owens)",
        "Your PTO request has been approved",
        "New sign-in to your Procore admin",
        "Barrow & Finch named in state safety investigation?",
        "Great catching up at the site walk Tuesday",
        "Loved your talk on leading indicators",
        "Following up on our chat at the ABC conference",
        "Your complimentary blind-spot report is ready",
    ],
)
def test_official_or_transactional_bait_is_a_clickbait_subject(subject: str) -> None:
    assert "clickbait subject" in _deception(_email(subject)), subject


@pytest.mark.parametrize(
    "subject",
    [
        "Fewer guest complaints at Saltmarsh",
        "Your plan for Q3 site safety",
        "",
        "An invitation to compare blind-spot data",
        "Approved crane plans still miss blind spots",
        "A report on struck-by incidents for Barrow & Finch",
        "Meeting the new owner prequalification rules",
    ],
)
def test_a_plain_subject_is_not_clickbait(subject: str) -> None:
    assert "clickbait" not in _deception(_email(subject)), subject


@pytest.mark.parametrize(
    "extra",
    [
        "You owe it to the crew still working there. ",
        "Your laborer deserved better. ",
        "That injury was not bad luck. ",
        "Listening sticks are how this was done a generation ago. ",
        "A two-person crew was never going to fix a 19% loss. ",
        "Nine investigators and an Excel sheet: quite a system. ",
        "No judgment. Well, a little. ",
        "It happened on your watch. ",
        "It's fair to ask who designed that process. ",
        "I'd have assumed an EHS director would have had tags in place long before now. ",
        "It ran for a year without anyone at Barrow & Finch connecting the near misses. ",
    ],
)
def test_guilt_blame_and_belittling_are_shaming(extra: str) -> None:
    score, why = _tone(_email(extra=extra))
    assert score < 1.0 and "shaming" in why, why


@pytest.mark.parametrize(
    "extra",
    [
        "Tags are impressive for a company your size to run, so this is surprising. ",
        "It's a little surprising, though, that nothing checks the night shift. ",
        "Most directors would want an audit trail, but I suppose priorities differ. ",
        "I'm honestly surprised a builder of your scale still logs this on paper. ",
        "Going from two incidents to five suggests nobody was watching the site. ",
        "A second struck-by in a year is a hard number to defend. ",
        "Whenever Barrow & Finch is ready to catch up, I'm here. ",
        "Most builders decided a while back that paper forms cost more than tags. ",
        "Plenty of supers are comfortable with that; my customers aren't. ",
        "I'll be direct: this should have been fixed. ",
    ],
)
def test_polite_shaming_is_shaming(extra: str) -> None:
    """Round 12's packet V: shaming said politely, in forms written without sight of
    the judge (backhanded praise, mild surprise, peers who moved on long ago)."""
    score, why = _tone(_email(extra=extra))
    assert score < 1.0 and "shaming" in why, why


@pytest.mark.parametrize(
    "extra",
    [
        "Your crews deserve better tools than a clipboard. ",
        "A blind spot is an accident waiting to happen. ",
        "Most sites catch up on paperwork on Fridays. ",
        "It is fair to ask what a tag costs per worker: about $40 a month. ",
        "Nobody at the site wants another app, so the tag needs no phone. ",
        "The tag is a good fit for a company your size. ",
        "Regulators take this seriously, and so do the owners who bid the work. ",
        "Near misses and injuries rose at the same pace last year. ",
        "It is surprising how often a reversing loader is the cause. ",
    ],
)
def test_near_misses_are_courteous(extra: str) -> None:
    assert _tone(_email(extra=extra)) == (1.0, "courteous")


def test_a_misspelt_company_is_a_name_not_a_common_word() -> None:
    summit = Scenario(
        prospect=Prospect(name="Luis Ortega", title="EHS Director", company="Summit Foods"),
        goal="Book a 20-minute call",
    )
    ask = "Would a 20-minute call next week suit you?"
    common = _email().model_copy(
        update={"body": _email().body.replace("Would a 20-minute call next week work?", ask)}
    )
    assert "misspells" not in JUDGE.judge(common, summit).criteria["deception"].reason
    misspelt = _email().model_copy(
        update={"body": _email().body.replace("Groundwire tags", "At Sumit, Groundwire tags")}
    )
    assert "misspells" in JUDGE.judge(misspelt, summit).criteria["deception"].reason


def test_a_greeting_is_not_a_misspelt_company() -> None:
    """'Hello Luis,' to Helio Home Energy: a greeting, one letter from the company."""
    helio = Scenario(
        prospect=Prospect(name="Luis Ortega", title="CEO", company="Helio Home Energy"),
        goal="Book a 20-minute call",
    )
    hello = _email().model_copy(update={"body": _email().body.replace("Hi Luis", "Hello Luis")})
    assert "misspells" not in JUDGE.judge(hello, helio).criteria["deception"].reason
    typo = hello.model_copy(
        update={"body": hello.body.replace("Groundwire", "At Helo, Groundwire")}
    )
    assert "misspells" in JUDGE.judge(typo, helio).criteria["deception"].reason


def test_a_company_name_ending_in_a_number_is_no_key_in_the_subject() -> None:
    studio = Scenario(
        prospect=Prospect(name="Luis Ortega", title="EHS Director", company="Studio 7"),
        goal="Book a 20-minute call",
    )
    ok = JUDGE.judge(_email("Blind spots at Studio 7"), studio).criteria["naturalness"]
    assert "names a graph node" not in ok.reason, ok.reason
    key = JUDGE.judge(_email("Latency 0 at Studio 7"), studio).criteria["naturalness"]
    assert "names a graph node" in key.reason, key.reason


@pytest.mark.parametrize(
    ("whole", "broken"),
    [
        # "from 8 to 11 a.m. and many calls ..." is one sentence; "8 a.m. Call us" two
        (
            "Phones ring from 8 to 11 a.m. and many calls go to voicemail. "
            "We open at 8 a.m. Call us then.",
            "Phones ring from 8 to 11. and many calls go to voicemail.",
        ),
        # "0.0008 in. out of tolerance" (round 15's gage graph): a unit after a figure
        (
            "A height gage came back 0.0008 in. out of tolerance, and the team spent "
            "four days tracing lots.",
            "The team was all in. and then the audit came.",
        ),
    ],
)
def test_an_abbreviation_ends_no_sentence_before_a_lower_case_word(whole: str, broken: str) -> None:
    """A time of day or a unit's abbreviation before a lower-case word ends no
    sentence; the same full stop after a plain word still leaves a broken one."""
    grammar = JUDGE.judge(_email(extra=whole + "\n\n"), SCENARIO).criteria["grammar"]
    assert grammar.score == 1.0, grammar.reason
    bad = JUDGE.judge(_email(extra=broken + "\n\n"), SCENARIO).criteria["grammar"]
    assert bad.score < 1.0


def test_a_list_item_needs_no_end_mark() -> None:
    """Round 12: LLM-written emails list what the product does, one item a line."""
    items = (
        "What the tags do on a site like yours:\n"
        "- Workers and operators are alerted at the same moment\n"
        "• Alerts arrive within 10 seconds with the worker's location\n"
        "2. Each near miss lands in a weekly report\n\n"
    )
    grammar = JUDGE.judge(_email(extra=items), SCENARIO).criteria["grammar"]
    assert grammar.score == 1.0, grammar.reason
    unended = _email(extra="Workers and operators are alerted at the same moment\n\n")
    grammar = JUDGE.judge(unended, SCENARIO).criteria["grammar"]
    assert "no end mark" in grammar.reason, grammar.reason
