"""Another state's rules cited to a reader placed elsewhere (judge/rubric/places.py)."""

from __future__ import annotations

from codreamer.graph.store import GraphStore
from codreamer.judge.rubric import RubricJudge
from codreamer.judge.rubric.places import other_state_rule
from codreamer.models import FinalEmail, Prospect, Scenario

_GRAPH = [
    {"id": "Customer Job", "content": "City clerks answer public records requests on "
     "deadlines set by state law.",
     "edges": [{"target": "Penalties", "label": "faces", "rationale": "Late answers cost."}]},
    {"id": "Penalties", "content": "Washington's PRA lets courts award penalties of up to "
     "$100 per day for each record wrongly withheld.",
     "edges": [{"target": "Product Feature", "label": "is avoided by",
                "rationale": "Tracked deadlines are met."}]},
    {"id": "Product Feature", "content": "RecordsDesk by Civicline tracks every request's "
     "deadline and logs each redaction with its exemption.", "edges": []},
]  # fmt: skip
_BODY = (
    "Hi Jasmine,\n\nWashington's PRA lets courts award penalties of up to $100 per day "
    "for each record wrongly withheld.\n\nRecordsDesk tracks every request's deadline "
    "and logs each redaction with its exemption.\n\nWould a 20-minute call next week "
    "work?\n\nBest,\nSam Carter"
)


def _scenario(notes: str) -> Scenario:
    return Scenario(
        id="clerk",
        prospect=Prospect(
            name="Jasmine Ortiz",
            title="Deputy City Clerk",
            company="City of Cedarport",
            notes=notes,
        ),  # fmt: skip
        goal="Book a 20-minute call",
    )


def test_another_state_s_law_costs_for_a_reader_placed_elsewhere() -> None:
    store = GraphStore.from_json(_GRAPH)
    judge = RubricJudge(store)
    email = FinalEmail(subject="Records deadlines", body=_BODY,
                       citations=["Customer Job", "Penalties", "Product Feature"])  # fmt: skip
    texas = judge.judge(email, _scenario("Tracks the Texas 10-business-day deadline by hand."))
    unplaced = judge.judge(email, _scenario("Tracks every deadline by hand."))
    washington = judge.judge(email, _scenario("Her Washington city gets 40 requests a week."))
    assert "another state's rules" in texas.criteria["contradiction"].reason
    assert texas.criteria["contradiction"].score < unplaced.criteria["contradiction"].score
    assert texas.total < unplaced.total
    assert washington.criteria["contradiction"].score == unplaced.criteria["contradiction"].score


def test_places_that_are_not_a_rule_for_the_reader_are_not_read() -> None:
    ca = "Her office in California answers 160 requests."
    assert (
        other_state_rule(["States like Texas, Ohio and Georgia use different forms."], ca) is None
    )
    assert other_state_rule(["Texas requires a ruling request within 10 business days."],
                            "the Texas deadline") is None  # fmt: skip
    # the email names the reader's own state too: a comparison, not a mistake
    assert other_state_rule(["Unlike Washington, California law sets no per-day penalty."],
                            ca) is None  # fmt: skip
    # "West Virginia" is one state, not Virginia
    assert other_state_rule(["West Virginia code requires annual tests."],
                            "Sites in Virginia.") is not None  # fmt: skip
