"""Leads as sales teams have them (DESIGN §2): a CRM's CSV export, or JSON objects.

Columns are recognised whatever their case, spacing and punctuation ("First Name",
"first_name", "FIRSTNAME", "Job Title", "Company Name", "E-mail Address"...): a
header is reduced to lower-case letters and digits and looked up in ALIASES. Columns
that are not recognised are kept as they are and passed through to the output. A
row that cannot be a lead (no name, a malformed email address, a field too long) is
reported by its row number, as a spreadsheet numbers it (the header is row 1), and
the other rows go on. Pure: text in, leads and problems out.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

from codreamer.models import Prospect

# Field -> the headers (reduced: lower-case letters and digits only) that mean it.
ALIASES: dict[str, tuple[str, ...]] = {
    "first_name": ("firstname", "first", "givenname", "forename", "contactfirstname"),
    "last_name": ("lastname", "last", "surname", "familyname", "contactlastname"),
    "name": ("name", "fullname", "contactname", "contact", "leadname", "prospectname"),
    "email": (
        "email", "emailaddress", "email1", "workemail", "businessemail", "contactemail",
        "primaryemail", "mail",
    ),
    "title": ("title", "jobtitle", "position", "role", "jobrole", "designation", "jobposition"),
    "company": (
        "company", "companyname", "account", "accountname", "organization", "organisation",
        "organizationname", "organisationname", "employer", "business",
    ),
    "industry": ("industry", "sector", "vertical", "companyindustry", "industrytype"),
    "notes": (
        "notes", "note", "description", "comments", "comment", "about", "context",
        "leadnotes", "background",
    ),
    "tech_stack": ("techstack", "technologies", "technology", "tools", "stack"),
    "lead_id": ("id", "leadid", "contactid", "recordid", "prospectid"),
}  # fmt: skip
_LOOKUP = {alias: f for f, aliases in ALIASES.items() for alias in aliases}
MAX_LEADS = 5000
MAX_FIELD_CHARS = 4000
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def reduce_header(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


def field_of(header: str) -> str | None:
    """The lead field a column header means, or None (a column passed through)."""
    return _LOOKUP.get(reduce_header(header))


@dataclass
class Lead:
    row: int  # as a spreadsheet numbers it (CSV: header row 1), or the 1-based index
    prospect: Prospect
    columns: dict[str, Any] = field(default_factory=dict)  # the input, as given


@dataclass
class LeadProblem:
    row: int
    error: str

    def as_dict(self) -> dict[str, Any]:
        return {"row": self.row, "error": self.error}


def lead_from_fields(row: int, values: dict[str, Any], columns: dict[str, Any]) -> Lead:
    """A lead from recognised fields; ValueError naming what is wrong."""
    for key, v in values.items():
        if isinstance(v, str) and len(v) > MAX_FIELD_CHARS:
            raise ValueError(f"{key} is {len(v):,} characters (at most {MAX_FIELD_CHARS:,})")

    def text(key: str) -> str:
        v = values.get(key)
        return str(v).strip() if v is not None else ""

    name = text("name") or " ".join(x for x in (text("first_name"), text("last_name")) if x)
    if not name:
        raise ValueError("no name: first name / last name or name are empty")
    email = text("email")
    if email and not _EMAIL.fullmatch(email):
        raise ValueError(f"email {email[:80]!r} is not an email address")
    stack = values.get("tech_stack")
    if isinstance(stack, str):
        stack = [t.strip() for t in re.split(r"[;,|]", stack) if t.strip()]
    prospect = Prospect(
        prospect_id=text("lead_id") or None,
        name=name,
        email=email or None,
        title=text("title") or None,
        company=text("company") or None,
        industry=text("industry") or None,
        tech_stack=[str(t) for t in stack] if isinstance(stack, list) else [],
        notes=text("notes") or None,
    )
    return Lead(row, prospect, columns)


def parse_csv(text: str, max_leads: int = MAX_LEADS) -> tuple[list[Lead], list[LeadProblem]]:
    """Leads of a CSV export (comma, semicolon or tab separated; a BOM is dropped)."""
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise ValueError("the CSV is empty: expected a header row and one row per lead")
    first = text.splitlines()[0]
    delimiter = max(",;\t", key=first.count)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = next(reader)
    except csv.Error as exc:
        raise ValueError(f"row 1: not CSV ({exc})") from None
    fields = [field_of(h) for h in header]
    if not any(f in ("name", "first_name", "last_name") for f in fields):
        shown = ", ".join(repr(h[:40]) for h in header[:12])
        raise ValueError(
            f"no name column: the header ({shown}) has none of First Name, Last Name, Name"
        )
    leads: list[Lead] = []
    problems: list[LeadProblem] = []
    row_no = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            row_no += 1
            problems.append(LeadProblem(row_no, f"not CSV ({exc})"))
            continue
        row_no = reader.line_num
        if not any(c.strip() for c in cells):
            continue  # blank lines between leads
        if len(leads) >= max_leads:
            raise ValueError(f"more than {max_leads:,} leads: split the file")
        if len(cells) > len(header):
            problems.append(LeadProblem(row_no, f"{len(cells)} cells for {len(header)} columns"))
            continue
        columns = {h: (cells[i] if i < len(cells) else "") for i, h in enumerate(header)}
        values = {f: columns[h] for h, f in zip(header, fields, strict=True) if f}
        try:
            leads.append(lead_from_fields(row_no, values, columns))
        except ValueError as exc:
            problems.append(LeadProblem(row_no, str(exc)))
    return leads, problems


def parse_json(items: Any, max_leads: int = MAX_LEADS) -> tuple[list[Lead], list[LeadProblem]]:
    """Leads of a JSON list of objects (prospects, or rows keyed as a CSV's header);
    row numbers are the objects' 1-based positions."""
    if not isinstance(items, list):
        raise ValueError("expected a JSON list of leads (objects)")
    if len(items) > max_leads:
        raise ValueError(f"more than {max_leads:,} leads: split the batch")
    leads: list[Lead] = []
    problems: list[LeadProblem] = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            problems.append(LeadProblem(i, f"expected an object, got {type(item).__name__}"))
            continue
        values: dict[str, Any] = {}
        for key, v in item.items():
            f = field_of(str(key))
            if f and v is not None:
                values[f] = v if f == "tech_stack" and isinstance(v, list) else str(v)
        try:
            leads.append(lead_from_fields(i, values, dict(item)))
        except ValueError as exc:
            problems.append(LeadProblem(i, str(exc)))
    return leads, problems


def to_csv(rows: list[dict[str, Any]]) -> str:
    """Rows (the input's columns, then the output's) as CSV, columns in first-seen order."""
    header: list[str] = []
    for r in rows:
        for k in r:
            if k not in header:
                header.append(k)
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=header, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _cell(v) for k, v in r.items()})
    return out.getvalue()


def _cell(v: Any) -> Any:
    if isinstance(v, list):
        return "; ".join(str(x) for x in v)
    return "" if v is None else v
