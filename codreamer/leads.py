"""Leads as sales teams have them (DESIGN §2): a CRM's CSV export, or JSON objects.

Columns are recognised whatever their case, spacing and punctuation ("First Name",
"first_name", "FIRSTNAME", "Job Title", "Company Name", "E-mail Address"...): a
header is reduced to lower-case letters and digits and looked up in ALIASES, the one
table of synonyms. CRMs that export several records at once prefix a column with its
record ("Person - Name", "Organization - Name", "Contact: Full Name", "Deal - Title"
in Pipedrive and Salesforce reports): a person's prefix is dropped, an organisation's
name or industry is the company's, and any other record's column (a deal's title is
not a job title) is passed through. When several columns mean the same field (a work
and a home email), the non-empty one whose header is the most specific is used.

Columns that are not recognised are kept as they are and passed through to the
output. A row that cannot be a lead (no name, no email address in its email column,
a field too long, a lone cell such as a report's footer) is reported by its row
number, as a spreadsheet numbers it (the header is row 1; a note with line breaks is
one row), and the other rows go on. Bytes are read as UTF-8 (a BOM is dropped), as
UTF-16 when they start with its BOM, else as Windows-1252, which Excel writes. Comma,
semicolon, tab or pipe separated; CRLF, LF or CR line ends. Pure: text in, leads and
problems out.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

from codreamer.models import Prospect

# Field -> the headers (reduced: lower-case letters and digits only) that mean it,
# the most specific first: when several columns of a file mean one field, the first
# of them here that is not empty wins (a person's full name over a Close "Lead Name",
# which is the company's; a work email over a home one; a job title over a headline).
# Seen in HubSpot, Salesforce (UI, reports and Data Export), Pipedrive, Zoho, Close,
# Dynamics, Apollo and LinkedIn exports.
ALIASES: dict[str, tuple[str, ...]] = {
    "first_name": ("firstname", "givenname", "forename", "fname", "first"),
    "last_name": ("lastname", "surname", "familyname", "lname", "last"),
    "name": ("fullname", "name", "contactname", "personname", "displayname", "prospectname",
             "contactperson", "primarycontact", "recipientname", "contact", "leadname"),
    "email": (
        "email", "emailaddress", "workemail", "businessemail", "emailwork", "primaryemail",
        "emailprimary", "officeemail", "emailoffice", "emailaddresswork", "email1", "mail",
        "emailother", "emailhome",
    ),
    "title": ("jobtitle", "title", "designation", "position", "jobposition", "role",
              "jobrole", "headline"),
    "company": (
        "companyname", "company", "accountname", "account", "organizationname",
        "organisationname", "organization", "organisation", "companyaccount", "orgname",
        "org", "currentcompany", "associatedcompany", "employer", "business",
    ),
    "industry": ("industry", "companyindustry", "accountindustry", "organizationindustry",
                 "organisationindustry", "industrytype", "sector", "vertical"),
    "notes": (
        "notes", "note", "leadnotes", "notecontent", "description", "comments", "comment",
        "remarks", "about", "context", "background",
    ),
    "tech_stack": ("techstack", "technologies", "technology", "stack", "tools"),
    "lead_id": ("id", "recordid", "leadid", "contactid", "prospectid", "personid"),
}  # fmt: skip
# Record prefixes of multi-record exports: a person's columns are the lead's; of an
# organisation's, only its name and industry are (its id, owner or address are not);
# any other record's (a deal, an activity) are passed through.
PERSON_PREFIXES = ("person", "contact", "lead", "prospect", "people")
ORG_PREFIXES = ("organization", "organisation", "account", "company", "org")
ORG_FIELDS = {"name": "company", "industry": "industry", "sector": "industry"}
_LOOKUP = {alias: f for f, aliases in ALIASES.items() for alias in aliases}
_RANK = {alias: i for aliases in ALIASES.values() for i, alias in enumerate(aliases)}
MAX_LEADS = 5000
MAX_FIELD_CHARS = 4000
MAX_CELLS = 500
_ADDRESS = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_DELIMITERS = ",;\t|"
_RECORD_SEP = re.compile(r"\s+-\s+|\s*:\s*|\.(?=[A-Za-z])")


def reduce_header(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


def field_of(header: str) -> str | None:
    """The lead field a column header means, or None (a column passed through)."""
    found = recognise(header)
    return found[0] if found else None


def recognise(header: str) -> tuple[str, int] | None:
    """(field, rank) of a column header: the rank is its alias's place in ALIASES, so
    of two columns meaning one field the more specific is preferred."""
    reduced = reduce_header(header)
    if reduced in _LOOKUP:
        return _LOOKUP[reduced], _RANK[reduced]
    # "Person - Email - Work", "Contact: Full Name", "Lead.Email": a record's column.
    parts = _RECORD_SEP.split(header.strip(), maxsplit=1)
    if len(parts) == 2:
        record, rest = reduce_header(parts[0]), reduce_header(parts[1])
        if record in PERSON_PREFIXES and rest in _LOOKUP:
            return _LOOKUP[rest], _RANK[rest]
        if record in ORG_PREFIXES:  # "Account: Account Name" is the company's name too
            meant = ORG_FIELDS.get(rest) or _LOOKUP.get(rest)
            return (meant, 0) if meant in ("company", "industry") else None
        return None  # a deal's, an activity's...: not the lead's
    # "ContactEmail", "LeadFirstName": a person's prefix run into the field's name.
    for prefix in PERSON_PREFIXES:
        rest = reduced[len(prefix) :]
        if reduced.startswith(prefix) and rest in _LOOKUP:
            return _LOOKUP[rest], _RANK[rest]
    return None


def pick_fields(cells: list[tuple[tuple[str, int] | None, Any]]) -> dict[str, Any]:
    """Each field's value from (recognised header, cell) pairs in column order: the
    non-empty cell of the best-ranked header (then the leftmost)."""
    best: dict[str, tuple[int, Any]] = {}
    for found, value in cells:
        if found is None or value is None or not str(value).strip():
            continue
        f, rank = found
        if f not in best or rank < best[f][0]:
            best[f] = (rank, value)
    return {f: v for f, (_, v) in best.items()}


# What may follow a name after a comma ("Dana Lopez, PhD", "Osei Fresh, Inc."): never
# a first name.
_NAME_SUFFIXES = {
    "jr", "sr", "ii", "iii", "iv", "phd", "md", "mba", "cpa", "esq", "dds", "rn",
    "inc", "llc", "ltd", "co", "corp", "gmbh", "ag", "sa", "plc", "bv", "srl", "oy", "ab",
}  # fmt: skip


def natural_order(name: str) -> str:
    """ "Lopez, Dana" (as address books and some CRMs list people) -> "Dana Lopez";
    "Dana Lopez, PhD" and any other name are kept as they are."""
    parts = [x.strip() for x in name.split(",")]
    if len(parts) != 2 or not all(parts):
        return name
    last, first = parts
    if len(first.split()) != 1 or len(last.split()) > 3:
        return name
    if first.rstrip(".").lower() in _NAME_SUFFIXES:
        return name
    return f"{first} {last}"


def first_address(cell: str) -> str | None:
    """The first email address in a cell ("a@x.com, b@x.com", "Dana <dana@x.com>")."""
    for token in re.split(r"[\s,;]+", cell):
        token = token.strip("<>()[]\"'")
        if _ADDRESS.fullmatch(token):
            return token
    return None


def decode_text(data: bytes) -> str:
    """A CSV file's text: UTF-16 when it starts with its BOM (Excel's "Unicode Text"),
    else UTF-8 (a BOM dropped), else Windows-1252 (Excel's "CSV (Comma delimited)")."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not UTF-16 despite its byte-order mark (byte {exc.start})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        utf8_error = exc.start
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        raise ValueError(
            f"not UTF-8 (byte {utf8_error}) nor Windows-1252: save the file as CSV UTF-8"
        ) from None


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

    name = natural_order(text("name")) or " ".join(
        x for x in (text("first_name"), text("last_name")) if x
    )
    if not name:
        raise ValueError("no name: first name / last name or name are empty")
    email = text("email")
    if email:
        address = first_address(email)
        if address is None:
            raise ValueError(f"email {email[:80]!r} is not an email address")
        email = address
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


def sniff_delimiter(header_line: str) -> str:
    """The delimiter the header row uses most, outside quotes (a comma by default)."""
    counts = dict.fromkeys(_DELIMITERS, 0)
    quoted = False
    for ch in header_line:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in counts:
            counts[ch] += 1
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def csv_problem(exc: csv.Error, delimiter: str) -> str:
    """What a csv.Error means for the person who exported the file."""
    text = str(exc)
    if "unexpected end of data" in text:
        return "a quoted cell is never closed: the rest of the file was read into it"
    if "expected after" in text:
        return f"text after a cell's closing quote (put it inside the quotes, before {delimiter!r})"
    return f"not CSV ({text[:120]})"


def unique_headers(header: list[str]) -> list[str]:
    """Column names as given; a repeated one gets " (2)", " (3)"... so none is lost."""
    seen: dict[str, int] = {}
    out = []
    for h in header:
        seen[h] = seen.get(h, 0) + 1
        out.append(h if seen[h] == 1 else f"{h} ({seen[h]})")
    return out


def parse_csv(text: str, max_leads: int = MAX_LEADS) -> tuple[list[Lead], list[LeadProblem]]:
    """Leads of a CSV export. Row numbers count records as a spreadsheet shows them:
    the header is row 1, a quoted note with line breaks is one row, blank rows count."""
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise ValueError("the CSV is empty: expected a header row and one row per lead")
    # newline="": the csv module sees CRLF, LF and lone CR line ends as they are.
    delimiter = sniff_delimiter(text.splitlines()[0])
    # strict: a stray quote is reported on its row, never read silently as text.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        given = [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise ValueError(f"row 1: not CSV ({exc})") from None
    if len(given) > MAX_CELLS:
        raise ValueError(f"row 1 has {len(given):,} columns (at most {MAX_CELLS})")
    found = [recognise(h) for h in given]
    header = unique_headers(given)
    if not any(f and f[0] in ("name", "first_name", "last_name") for f in found):
        shown = ", ".join(repr(h[:40]) for h in header[:12])
        more = f" and {len(header) - 12} more" if len(header) > 12 else ""
        raise ValueError(
            f"no name column: the header ({shown}{more}) has none of First Name, "
            "Last Name, Full Name, Name"
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
            problems.append(LeadProblem(row_no, csv_problem(exc, delimiter)))
            continue
        row_no += 1
        if not any(c.strip() for c in cells):
            continue  # blank rows between leads
        if len(leads) >= max_leads:
            raise ValueError(f"more than {max_leads:,} leads: split the file")
        if len(cells) > len(header):
            problems.append(LeadProblem(row_no, f"{len(cells)} cells for {len(header)} columns"))
            continue
        if len(cells) == 1 and len(header) >= 3:
            # A report's title or footer ("Confidential Information - Do Not
            # Distribute"), never a lead whose every other cell is missing.
            problems.append(
                LeadProblem(row_no, f"1 cell for {len(header)} columns: {cells[0][:60]!r}")
            )
            continue
        columns = {h: (cells[i] if i < len(cells) else "") for i, h in enumerate(header)}
        values = pick_fields([(f, columns[h]) for h, f in zip(header, found, strict=True)])
        try:
            leads.append(lead_from_fields(row_no, values, columns))
        except ValueError as exc:
            problems.append(LeadProblem(row_no, str(exc)))
    return leads, problems


def parse_json(items: Any, max_leads: int = MAX_LEADS) -> tuple[list[Lead], list[LeadProblem]]:
    """Leads of a JSON list of objects (prospects, scenarios holding a `prospect`, or
    rows keyed as a CSV's header); row numbers are the objects' 1-based positions."""
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
        # A scenario (data/scenarios.json): its prospect is the lead.
        fields = item["prospect"] if isinstance(item.get("prospect"), dict) else item
        values = pick_fields([(recognise(str(k)), v) for k, v in fields.items()])
        values = {f: v if f == "tech_stack" and isinstance(v, list) else str(v)
                  for f, v in values.items()}  # fmt: skip
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
