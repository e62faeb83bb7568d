"""Leads as CRMs export them: HubSpot, Salesforce (UI, report and Data Export),
Pipedrive and Zoho headers, with BOMs, semicolons, CRLF and CR line ends, quoted
line breaks in notes, Windows-1252 and UTF-16 bytes, full-name-only columns; unknown
columns passed through, bad rows reported by the row a spreadsheet shows."""

from __future__ import annotations

import pytest

from codreamer.leads import decode_text, field_of, parse_csv, parse_json


def parse_bytes(data: bytes):  # type: ignore[no-untyped-def]
    return parse_csv(decode_text(data))


HUBSPOT = (
    "\ufeffRecord ID,First Name,Last Name,Email,Job Title,Company Name,Industry,"
    "Lifecycle Stage,Contact owner\r\n"
    "101,Dana,Lopez,dana@corpus.ai,Head of ML,Corpus Labs,AI,lead,Ann Lee\r\n"
    '102,Mei,Chen,mei@tensorly.io,"Director, Data",Tensorly,Software,customer,Bob\r\n'
)


def test_hubspot_with_bom_and_crlf() -> None:
    leads, problems = parse_bytes(HUBSPOT.encode("utf-8"))
    assert problems == []
    dana, mei = leads
    assert dana.prospect.name == "Dana Lopez" and dana.prospect.prospect_id == "101"
    assert (dana.prospect.email, dana.prospect.title) == ("dana@corpus.ai", "Head of ML")
    assert (dana.prospect.company, dana.prospect.industry) == ("Corpus Labs", "AI")
    assert mei.prospect.title == "Director, Data" and mei.row == 3
    # Unknown columns are passed through under their own names, the first included.
    assert dana.columns["Lifecycle Stage"] == "lead"
    assert dana.columns["Contact owner"] == "Ann Lee"
    assert list(dana.columns)[0] == "Record ID"


SALESFORCE_REPORT = (
    '"First Name","Last Name","Title","Account Name","Email","Lead Source","Description",'
    '"Email Opt Out"\n'
    '"Omar","Haddad","VP Data","DataCo","omar@dataco.com","Web","Audit flagged slow\n'
    'incident reviews;\nlabels take weeks","0"\n'
    '"","","CTO","Nameless Inc","cto@nameless.com","Web","","0"\n'
    '"Priya","Nair","CFO","HarborFresh","priya@harborfresh","Event","","1"\n'
    '"Lena","Berg","COO","Fjord AS","lena@fjord.no","Web","","0"\n'
    "\n"
    '"Confidential Information - Do Not Distribute"\n'
    '"Copyright (c) 2000-2025 salesforce.com, inc. All rights reserved."\n'
)


def test_salesforce_report_with_quoted_newlines_and_footer() -> None:
    leads, problems = parse_csv(SALESFORCE_REPORT)
    assert [lead.prospect.name for lead in leads] == ["Omar Haddad", "Lena Berg"]
    omar, lena = leads
    assert omar.prospect.company == "DataCo" and omar.prospect.title == "VP Data"
    assert omar.prospect.notes == "Audit flagged slow\nincident reviews;\nlabels take weeks"
    assert omar.columns["Email Opt Out"] == "0"  # not taken for the email
    # A note with line breaks is one row, as a spreadsheet shows it.
    assert (omar.row, lena.row) == (2, 5)
    by_row = {p.row: p.error for p in problems}
    assert sorted(by_row) == [3, 4, 7, 8]
    assert "no name" in by_row[3]
    assert "'priya@harborfresh' is not an email address" in by_row[4]
    assert "1 cell for 8 columns" in by_row[7] and "Confidential" in by_row[7]


def test_salesforce_data_export_and_report_prefixes() -> None:
    api_names = "Id,FirstName,LastName,Company,Title,Email,Industry\n1,A,B,C,D,a@b.co,E\n"
    leads, problems = parse_csv(api_names)
    assert problems == [] and leads[0].prospect.company == "C"
    report = (
        "Contact: Full Name,Contact: Title,Account: Account Name,Account: Industry,"
        "Contact: Email,Account: Owner\nJo Park,CTO,Acme,Retail,jo@acme.com,Sam\n"
    )
    (jo,), problems = parse_csv(report)
    assert problems == []
    assert (jo.prospect.name, jo.prospect.title, jo.prospect.company) == ("Jo Park", "CTO", "Acme")
    assert jo.prospect.industry == "Retail" and jo.prospect.email == "jo@acme.com"
    assert field_of("Account: Owner") is None and field_of("Company / Account") == "company"


PIPEDRIVE = (
    "Person - Name;Organization - Name;Person - Email - Work;Person - Email - Home;"
    "Person - Job title;Deal - Title;Organization - ID;Person - Label\n"
    "Ines Duarte;Vinhos SA;;ines@home.pt;Head of Ops;Q3 renewal;77;Hot\n"
    "Tom Reed;Reed & Co;tom@reed.co, t.reed@gmail.com;;Founder;Pilot;78;\n"
)


def test_pipedrive_record_prefixes_semicolons_and_email_lists() -> None:
    leads, problems = parse_csv(PIPEDRIVE)
    assert problems == []
    ines, tom = leads
    assert (ines.prospect.name, ines.prospect.company) == ("Ines Duarte", "Vinhos SA")
    # The first email column that is not empty; the first address of a list.
    assert ines.prospect.email == "ines@home.pt" and tom.prospect.email == "tom@reed.co"
    # A deal's title is not a job title, an organisation's id is not the lead's.
    assert ines.prospect.title == "Head of Ops" and ines.prospect.prospect_id is None
    assert ines.columns["Deal - Title"] == "Q3 renewal"
    assert field_of("Deal - Title") is None and field_of("Organization - ID") is None


ZOHO = (
    "Record Id\tLead Owner\tSalutation\tFirst Name\tLast Name\tDesignation\tCompany\t"
    "Email\tIndustry\tDescription\tSecondary Email\r\n"
    "zcrm_1\tAnn\tMs.\tSofia\tRossi\tPlant Manager\tPack Co\tsofia@pack.co\t"
    "Packaging\tLine stops twice a week\tsofia@gmail.com\r\n"
)


def test_zoho_tab_separated_utf16_from_excel() -> None:
    leads, problems = parse_bytes(ZOHO.encode("utf-16"))  # with its BOM
    assert problems == []
    (sofia,) = leads
    assert (sofia.prospect.name, sofia.prospect.title) == ("Sofia Rossi", "Plant Manager")
    assert sofia.prospect.company == "Pack Co" and sofia.prospect.email == "sofia@pack.co"
    assert sofia.prospect.notes == "Line stops twice a week"
    assert sofia.columns["Secondary Email"] == "sofia@gmail.com"
    assert sofia.columns["Salutation"] == "Ms."


def test_windows_1252_and_lone_cr_line_ends() -> None:
    text = "Full Name;Company;Notes\rJosé Müller;Café Zürich;“fast” – no delays\r"
    leads, problems = parse_bytes(text.encode("cp1252"))
    assert problems == []
    assert leads[0].prospect.name == "José Müller"
    assert leads[0].prospect.notes == "“fast” – no delays"


@pytest.mark.parametrize("header", ["Full Name", "Contact", "Lead Name", "Person - Name", "NAME"])
def test_full_name_only_column(header: str) -> None:
    leads, problems = parse_csv(f'{header},Company\n"Dr. Amara Osei",Clinic\n\n,Empty\n')
    assert [lead.prospect.name for lead in leads] == ["Dr. Amara Osei"]
    assert leads[0].prospect.first_name == "Amara"
    # The blank row 3 counts, as a spreadsheet counts it.
    assert [(p.row, "no name" in p.error) for p in problems] == [(4, True)]


def test_errors_name_what_is_wrong_and_stay_small() -> None:
    with pytest.raises(ValueError, match="no name column.*'Owner'.*and 39 more"):
        parse_csv(",".join(["Owner"] + [f"c{i}" for i in range(50)]) + "\n")
    with pytest.raises(ValueError, match="empty"):
        parse_csv("\ufeff  \r\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        decode_text(b"Name\n\x81\x8d\x8f\x90\x9d")
    long_note = "x" * 5000
    leads, problems = parse_csv(f'Name,Notes,Extra\nA,"{long_note}",1\nB,ok,2,3\n')
    assert leads == []
    assert [p.row for p in problems] == [2, 3]
    assert "5,000 characters" in problems[0].error and len(problems[0].error) < 200
    assert problems[1].error == "4 cells for 3 columns"


def test_repeated_header_keeps_both_columns() -> None:
    (lead,), _ = parse_csv("Name,Email,Email\nA,,a@b.co\n")
    assert lead.prospect.email == "a@b.co"
    assert lead.columns == {"Name": "A", "Email": "", "Email (2)": "a@b.co"}


def test_json_rows_keyed_as_a_crm_export() -> None:
    leads, problems = parse_json(
        [
            {"Person - Name": "Ines", "Organization - Name": "Vinhos", "Deal - Title": "X"},
            {"First Name": "", "Last Name": ""},
            "nope",
        ]
    )
    assert leads[0].prospect.company == "Vinhos" and leads[0].prospect.title is None
    assert leads[0].columns["Deal - Title"] == "X"
    assert [(p.row, p.error[:7]) for p in problems] == [(2, "no name"), (3, "expecte")]


def test_the_most_specific_of_several_columns_wins() -> None:
    # Close: a "lead" is the company, its contacts are the people; HubSpot's "Job
    # function" is a department, never a title; LinkedIn's headline is a last resort.
    close = (
        "lead_name,contact_name,contact_title,Job function,Headline,Home Email,Email\n"
        "Osei Fresh,Amara Osei,COO,Operations,Fresh food at scale,a@home.net,amara@osei.co\n"
        "Osei Fresh,Kofi Osei,,Finance,CFO at Osei Fresh,,\n"
    )
    (amara, kofi), problems = parse_csv(close.replace("Home Email", "Email - Home"))
    assert problems == []
    assert (amara.prospect.name, amara.prospect.title) == ("Amara Osei", "COO")
    assert amara.prospect.email == "amara@osei.co"  # the work address, though it is last
    assert (kofi.prospect.name, kofi.prospect.title) == ("Kofi Osei", "CFO at Osei Fresh")
    assert amara.columns["Job function"] == "Operations" and field_of("Job function") is None


def test_stray_quotes_are_reported_on_their_row() -> None:
    text = 'Name,Company\n"Acme" Inc,x\nB,y\n"unterminated,z\nC,w\n'
    leads, problems = parse_csv(text)
    assert [lead.prospect.name for lead in leads] == ["B"]
    assert [p.row for p in problems] == [2, 4]
    assert problems[0].error.startswith("text after a cell's closing quote")
    assert problems[1].error.startswith("a quoted cell is never closed")


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ("Lopez, Dana", "Dana Lopez"),
        ("van der Berg, Lena", "Lena van der Berg"),
        ("Dana Lopez, PhD", "Dana Lopez, PhD"),
        ("Osei Fresh, Inc.", "Osei Fresh, Inc."),
        ("Lopez, Dana Maria", "Lopez, Dana Maria"),
        ("Dana Lopez", "Dana Lopez"),
    ],
)
def test_last_comma_first_names_are_put_in_natural_order(given: str, name: str) -> None:
    (lead,), _ = parse_csv(f'Contact Person,Company\n"{given}",Acme\n')
    assert lead.prospect.name == name
    assert lead.columns["Contact Person"] == given  # the input passed through as given


def test_scenarios_json_gives_its_prospects(repo_root) -> None:  # type: ignore[no-untyped-def]
    import json

    scenarios = json.loads((repo_root / "data" / "scenarios.json").read_text())
    leads, problems = parse_json(scenarios)
    assert problems == [] and len(leads) == len(scenarios)
    first = scenarios[0]["prospect"]
    assert leads[0].prospect.name == first["name"]
    assert leads[0].prospect.tech_stack == first.get("tech_stack", [])
    assert leads[0].columns["id"] == scenarios[0]["id"]  # the object passed through
