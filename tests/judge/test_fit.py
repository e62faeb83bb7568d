# ruff: noqa: E501  (email bodies are written one paragraph per line, as sent)
"""The rubric's `fit` criterion: the same email is worth more to the reader it is
pitched at (length by seniority, register, frame by function), on any graph."""

from __future__ import annotations

from codreamer.judge.rubric import RubricJudge
from codreamer.models import FinalEmail, Prospect, Scenario

CITES = ["Customer Job", "Product Feature"]


def _scenario(title: str, industry: str) -> Scenario:
    return Scenario(
        id=title.lower().replace(" ", "-"),
        prospect=Prospect(name="Dana Reyes", title=title, company="Northwind", industry=industry),
        goal="Secure a 20-minute call",
    )


CFO = _scenario("Chief Financial Officer", "insurance")
ENGINEER = _scenario("Senior Data Engineer", "logistics")

# Short, formal, about what changes: written for a finance executive.
EXEC_EMAIL = FinalEmail(
    subject="Cutting reporting cost at Northwind",
    body="""Dear Dana Reyes,

Finance teams in insurance lose weeks each quarter reconciling reports by hand. Cutting that work frees budget and gives your team hours back for the decisions that matter to the margin.

Would you be open to a 20-minute call to see whether the savings are real for Northwind?

Kind regards,
Sam Carter""",
    citations=CITES,
)

# Longer, peer, about how it works: written for an engineer.
ENGINEER_EMAIL = FinalEmail(
    subject="How the pipeline checks work",
    body="""Hi Dana,

Data engineers in logistics usually run nightly pipelines that load shipment records from several systems into one warehouse. The step that breaks most often is schema drift: a source system renames a field and the load job writes nulls without failing.

Our tool connects to the pipeline as a step after each load, reads the schema and the data, and checks each column against the records it has seen before. When a check fails it flags the run, logs which field changed and stops the downstream jobs, so the bad data never reaches the dashboards.

Setup is a config file in the repository and one API key; the checks run inside your existing workflow and the logs stream to the tools your team already monitors.

Would a 20-minute call to walk through the setup on one of your pipelines be useful?

Best,
Sam Carter""",
    citations=CITES,
)


def test_each_email_fits_its_own_reader_better() -> None:
    judge = RubricJudge()  # no graph: fit reads the text and the prospect only
    fit = {
        (e, s.id): judge.judge(email, s).criteria["fit"].score
        for e, email in (("exec", EXEC_EMAIL), ("eng", ENGINEER_EMAIL))
        for s in (CFO, ENGINEER)
    }
    assert fit["exec", CFO.id] > fit["exec", ENGINEER.id] + 0.2
    assert fit["eng", ENGINEER.id] > fit["eng", CFO.id] + 0.2
    assert fit["exec", CFO.id] > fit["eng", CFO.id] + 0.2
    assert fit["eng", ENGINEER.id] > fit["exec", ENGINEER.id] + 0.1


def test_the_reason_names_what_it_measured() -> None:
    reason = RubricJudge().judge(ENGINEER_EMAIL, CFO).criteria["fit"].reason
    assert "for an executive" in reason and "expects formal" in reason and "frames how" in reason


def test_no_title_means_not_scored() -> None:
    nobody = Scenario(id="x", prospect=Prospect(name="there"), goal="Secure a call")
    j = RubricJudge().judge(EXEC_EMAIL, nobody)
    assert j.criteria["fit"].weight == 0.0 and "not scored" in j.criteria["fit"].reason
