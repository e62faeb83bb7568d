"""Feedback into an agent's file (DESIGN §4): where a posted rating goes, and outcomes
imported as CSV, keyed by email_key or by the lead's email address."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from codreamer.errors import AgentNotFoundError
from codreamer.judge.feedback import OUTCOME_VALUES, FeedbackEvent
from codreamer.leads import field_of, first_address, reduce_header, sniff_delimiter
from codreamer.store.agents import AgentPaths, logged_emails
from codreamer.store.feedback import append_feedback

# What CRMs and sequencers call an outcome -> ours.
OUTCOME_WORDS = {
    "bounce": "bounced", "bounced": "bounced", "hardbounce": "bounced",
    "unsubscribe": "unsubscribed", "unsubscribed": "unsubscribed", "optout": "unsubscribed",
    "ignored": "ignored", "noreply": "ignored", "noresponse": "ignored", "none": "ignored",
    "open": "opened", "opened": "opened",
    "reply": "replied", "replied": "replied", "responded": "replied",
    "callbooked": "call_booked", "meetingbooked": "call_booked", "booked": "call_booked",
    "meeting": "call_booked", "call": "call_booked",
    # As sequencers and CRMs name them (HubSpot's email events, Outreach, Salesforce).
    "click": "opened", "clicked": "opened", "opens": "opened",
    "replies": "replied", "replyreceived": "replied",
    "meetingscheduled": "call_booked", "meetingset": "call_booked",
    "callscheduled": "call_booked", "demobooked": "call_booked",
    "softbounce": "bounced", "softbounced": "bounced", "hardbounced": "bounced",
    "optedout": "unsubscribed", "spamreport": "unsubscribed", "markedasspam": "unsubscribed",
    "noanswer": "ignored", "unopened": "ignored",
}  # fmt: skip
MAX_PROBLEMS = 100
KEY_RE = re.compile(r"sha256:[0-9a-f]{32}")


def outcome_of(text: str) -> str | None:
    return OUTCOME_WORDS.get(reduce_header(text))


def keys_by_lead(agent: AgentPaths) -> dict[str, str]:
    """lead email (lower case) -> the key of the latest email written for that lead."""
    out: dict[str, str] = {}
    for row in logged_emails(agent):
        lead, key = row.get("lead_email"), row.get("email_key")
        if isinstance(lead, str) and isinstance(key, str):
            out[lead.strip().lower()] = key
    return out


def import_outcomes(results_dir: Path, name: str, text: str) -> dict[str, Any]:
    """Append each row's outcome to the agent's feedback; ValueError for a file that is
    not an outcomes CSV, and rows that match nothing reported by row number."""
    try:
        return _import(results_dir, name, text)
    except csv.Error as exc:  # a stray quote or NUL byte: not CSV
        raise ValueError(f"not CSV ({exc})") from None


def _import(results_dir: Path, name: str, text: str) -> dict[str, Any]:
    agent = AgentPaths(results_dir, name)
    if not agent.versions():
        raise AgentNotFoundError(name)
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise ValueError("the CSV is empty: expected a header and one row per outcome")
    reader = csv.reader(
        io.StringIO(text, newline=""), delimiter=sniff_delimiter(text.splitlines()[0])
    )
    header = [h.strip() for h in next(reader)]
    col = [_column(h) for h in header]
    if "outcome" not in col:
        raise ValueError(f"no outcome column among {', '.join(map(repr, header[:12]))}")
    if not {"email_key", "email"} & set(col):
        raise ValueError("no email_key or email column: outcomes are matched by one of them")
    by_lead = keys_by_lead(agent)
    imported, problems = 0, []
    n = 1  # rows as a spreadsheet numbers them: the header is row 1
    for cells in reader:
        n += 1
        if not any(c.strip() for c in cells):
            continue
        values: dict[str, str] = {}
        for c, v in zip(col, cells, strict=False):
            if c and not values.get(c):  # the first that is not empty
                values[c] = v.strip()
        address = (first_address(values.get("email", "")) or "").lower()
        key = values.get("email_key") or by_lead.get(address)
        given = values.get("outcome", "")
        outcome = outcome_of(given)
        if outcome is None:
            problems.append({"row": n, "error": f"unknown outcome {given[:80]!r}; "
                             f"known: {', '.join(OUTCOME_VALUES)}"})  # fmt: skip
        elif not key or not KEY_RE.fullmatch(key):
            problems.append({"row": n, "error": "no email of this agent matches its "
                             "email_key or email address"})  # fmt: skip
        else:
            event = FeedbackEvent(type="online_outcome", email_key=key, outcome=outcome)  # type: ignore[arg-type]
            append_feedback(results_dir, name, event.model_dump(mode="json", exclude_none=True))
            imported += 1
    return {
        "agent": name,
        "imported": imported,
        "skipped": len(problems),
        "problems": problems[:MAX_PROBLEMS],
    }


def _column(header: str) -> str | None:
    r = reduce_header(header)
    if r in ("emailkey", "key"):
        return "email_key"
    if r in ("outcome", "status", "result", "event", "eventtype", "disposition", "callresult"):
        return "outcome"
    return "email" if field_of(header) == "email" else None
