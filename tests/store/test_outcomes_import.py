"""Outcomes imported as CSV (codreamer/runs/feedback_import.py) into a real results
store: matched by email_key or by the lead's address (the latest email written for
it), outcome words as CRMs and sequencers export them, rows reported as a
spreadsheet numbers them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codreamer.errors import AgentNotFoundError
from codreamer.runs.feedback_import import import_outcomes
from codreamer.store.agents import AgentPaths, log_emails, record_version

DANA_OLD = "sha256:" + "a" * 32
DANA = "sha256:" + "b" * 32
MEI = "sha256:" + "c" * 32


@pytest.fixture
def store(tmp_path: Path) -> Path:
    agent = AgentPaths(tmp_path, "team")
    record_version(agent, manifest={"config": {}}, policy={}, node_scores={}, graph=[])
    log_emails(agent, [
        {"email_key": DANA_OLD, "lead_email": "dana@corpus.ai"},
        {"email_key": DANA, "lead_email": "Dana@Corpus.ai"},
        {"email_key": MEI, "lead_email": "mei@tensorly.io"},
    ])  # fmt: skip
    return tmp_path


def feedback(store: Path) -> list[dict]:
    lines = (store / "feedback" / "team.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines]


def test_by_lead_address_as_a_crm_exports_it(store: Path) -> None:
    text = (
        "\ufeffRecipient;Event Type;Notes\r\n"
        'DANA@corpus.ai;Meeting Scheduled;"called back\r\non Tuesday"\r\n'
        "\r\n"
        "Mei Chen <mei@tensorly.io>;CLICKED;\r\n"
        "ghost@example.com;replied;\r\n"
        "mei@tensorly.io;not interested;\r\n"
    )
    # "Recipient" is not an email column: refused, naming the columns it saw.
    with pytest.raises(ValueError, match="no email_key or email column"):
        import_outcomes(store, "team", text)
    report = import_outcomes(store, "team", text.replace("Recipient", "Email Address"))
    assert report["imported"] == 2
    # A quoted line break is one row, the blank row counts: rows 5 and 6.
    assert [p["row"] for p in report["problems"]] == [5, 6]
    assert "matches" in report["problems"][0]["error"]
    assert "'not interested'" in report["problems"][1]["error"]
    assert "call_booked" in report["problems"][1]["error"]  # the known outcomes listed
    got = [(r["email_key"], r["outcome"]) for r in feedback(store)]
    assert got == [(DANA, "call_booked"), (MEI, "opened")]  # Dana's latest email


def test_by_email_key_and_errors(store: Path) -> None:
    report = import_outcomes(store, "team", f"email_key,outcome\n{MEI},Hard Bounced\n")
    assert report == {"agent": "team", "imported": 1, "skipped": 0, "problems": []}
    assert feedback(store)[-1]["outcome"] == "bounced"
    with pytest.raises(ValueError, match="no outcome column among 'email'"):
        import_outcomes(store, "team", "email\nmei@tensorly.io\n")
    with pytest.raises(ValueError, match="empty"):
        import_outcomes(store, "team", "\ufeff\r\n")
    with pytest.raises(AgentNotFoundError):
        import_outcomes(store, "nobody", "email,outcome\n")
