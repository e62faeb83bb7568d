"""Who reads: seniority, function and a formal industry from a title and an industry."""

from __future__ import annotations

import pytest

from codreamer.agent.reader import reader


@pytest.mark.parametrize(
    ("title", "industry", "seniority", "functions", "formal"),
    [
        ("Chief Financial Officer", "seafood wholesale", "executive", {"finance"}, True),
        ("CTO", "synthetic data", "executive", {"technical"}, False),
        ("VP Regulatory Compliance", "pharmaceutical distribution", "executive",
         {"compliance"}, True),
        ("Head of Food Safety", "meal kits", "director", {"compliance"}, None),
        ("Fleet Maintenance Manager", "refrigerated trucking", "manager", {"operations"}, False),
        ("Machine Learning Engineer", "synthetic data", "individual", {"technical"}, False),
        ("Research Scientist", "retail banking", "individual", {"technical"}, True),
    ],
)  # fmt: skip
def test_reads_the_title_and_industry(title, industry, seniority, functions, formal) -> None:
    who = reader(title, industry)
    assert who.seniority == seniority
    assert who.functions == frozenset(functions)
    assert who.formal is formal


def test_no_title_is_no_one_in_particular() -> None:
    who = reader(None, "dairy")
    assert who.seniority is None and who.senior == 0.5 and not who.functions
