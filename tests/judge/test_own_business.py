# ruff: noqa: E501  (email bodies are written one paragraph per line, as sent)
"""Telling the reader their own business, by its wording (judge/rubric/own_business.py)."""

from __future__ import annotations

import pytest

from codreamer.judge.rubric import RubricJudge
from codreamer.judge.rubric.own_business import told_own_business
from codreamer.loaders import load_graph
from codreamer.models import FinalEmail, Prospect, Scenario
from tests.support.paths import REPO


@pytest.mark.parametrize(
    "prose",
    [
        "As VP Operations you're responsible for getting those loads there on time.",
        "As Director of Litigation Support you staff and run it.",
        "As a Claims Litigation Manager, Heather, you know how slow this is.",
        "As Analytics Lead, your job is to make sure people get accurate numbers.",
        "Your role is to keep the network running.",
        "You're the one deciding whether agents do a good job.",
        "As you know, seafood margins are thin.",
        "Northfield Dairy is a dairy distributor with a fleet of reefers.",
        "Thanks for reading. Northfield makes overnight deliveries to grocers.",
    ],
)
def test_the_reader_told_their_own_role_or_business_is_found(prose: str) -> None:
    assert told_own_business(prose, "northfield dairy", "northfield"), prose


@pytest.mark.parametrize(
    "prose",
    [
        # A hedged guess about the reader is a question, which readers grade well.
        "As a superintendent you probably hear about near misses secondhand.",
        "As a superintendent, you may never see the paper form.",
        # The seller's company saying what it does is the pitch, not the reader's business.
        "Frostline makes wireless probes that record each pallet every minute.",
        # The reader's company as the object, not the subject.
        "We help teams like Northfield Dairy catch excursions on the road.",
        "Your drivers lost two loads to compressor failures last quarter.",
        # What the company does told only through "your trucks": not a sentence with
        # the company as its subject, and not counted.
        "At Northfield Dairy your trucks move milk every night.",
    ],
)
def test_the_pitch_a_guess_and_the_readers_situation_are_not(prose: str) -> None:
    assert told_own_business(prose, "northfield dairy", "northfield") == []


SCENARIO = Scenario(
    id="northfield-dairy-ops",
    prospect=Prospect(
        name="Priya Nair", title="VP Operations", company="Northfield Dairy",
        industry="dairy distribution", tech_stack=["Samsara"],
        notes="Two reefer compressor failures last quarter spoiled loads.",
    ),
    goal="Secure a 20-minute discovery call",
)  # fmt: skip
PITCH = (
    "Frostline's wireless probes record each pallet's temperature every minute and alert "
    "the driver and dispatcher as soon as a load starts to drift, so a failing compressor "
    "gets caught on the road rather than at the dock."
)
OPENERS = {
    "situation": "Two compressor failures in one quarter is two spoiled loads too many.",
    "own business": "Northfield Dairy is a dairy distributor, and as VP Operations you're responsible for getting every load there cold.",
}


def _email(opener: str) -> FinalEmail:
    body = f"Hi Priya,\n\n{opener}\n\n{PITCH}\n\nWould you be open to a 20-minute discovery call?\n\nBest,\nSam Carter"
    return FinalEmail(
        subject="Compressor failures",
        body=body,
        citations=["Customer Job", "Temperature Excursions", "Product Feature"],
    )  # fmt: skip


def test_the_judge_marks_an_email_down_for_telling_the_reader_their_business() -> None:
    judge = RubricJudge(load_graph(REPO / "data" / "graph.json"))
    scores = {k: judge.judge(_email(v), SCENARIO) for k, v in OPENERS.items()}
    told = scores["own business"].criteria["own_job"]
    assert told.score <= 0.25  # two phrases: the company and the role
    assert "own business" in told.reason
    assert scores["situation"].criteria["own_job"].score == 1.0
    assert scores["own business"].total < scores["situation"].total


def test_without_a_graph_the_wording_still_scores_it() -> None:
    judge = RubricJudge(None)
    told = judge.judge(_email(OPENERS["own business"]), SCENARIO).criteria["own_job"]
    assert told.score < 1.0
    clean = judge.judge(_email(OPENERS["situation"]), SCENARIO).criteria["own_job"]
    assert clean.reason.endswith("not scored")


@pytest.mark.parametrize(
    "prose",
    [
        "Northfield Dairy is a dairy distributor. As VP Operations, Priya, you run it.",
        ". Northfield makes deliveries. Because NORTHFIELD sells milk! northfield is one of them",
        "northfield dairy builds x. As you know. AS THE HEAD OF OPS YOU'RE busy.",
        "As a Claims Manager, Heather, you know. Your role is hard; you're in charge of it.",
        "Nothing about them at all, and as a rule no titles.",
    ],
)
def test_the_ascii_fast_form_finds_what_the_case_blind_patterns_find(prose: str) -> None:
    from codreamer.judge.rubric import own_business as ob

    want = [m.group(0).strip() for m in ob._ROLE.finditer(prose)]
    pattern = ob._company_pattern("northfield dairy", "northfield")
    assert pattern is not None
    want += [m.group(0).strip(" .!?") for m in pattern.finditer(prose)]
    assert bool(want) == (not prose.startswith("Nothing"))
    assert told_own_business(prose, "northfield dairy", "northfield") == want
