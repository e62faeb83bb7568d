"""`codreamer agents list|show|import-outcomes` and `codreamer write`, as a user runs
them: the real CLI as a subprocess on a results store of its own, an agent trained by
`codreamer learn-loop --agent`, leads as a CRM exports them, CSV and JSON in and out."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_cli

REPO = Path(__file__).resolve().parents[1]
PIPEDRIVE = (
    "Person - Name;Organization - Name;Person - Email - Work;Person - Job title;"
    "Deal - Title;Person - Notes\r\n"
    "Ines Duarte;Vinhos SA;ines@vinhos.pt;Head of Logistics;Q3 renewal;"
    '"Two reefer loads lost in June;\r\ninsurer asked for temperature logs"\r\n'
    ";Nameless;cto@nameless.com;CTO;Pilot;\r\n"
    "Tom Reed;Reed Foods;tom@reed;Founder;Pilot;\r\n"
    "Mei Chen;Cold Chain Co;mei@coldchain.co;VP Operations;Expansion;\r\n"
)


class Cli:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.results = home / "results"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("CODREAMER_", "OPENAI_"))},
            "CODREAMER_RESULTS_DIR": str(self.results),
            "CODREAMER_DATA_DIR": str(REPO / "data"),
        }

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, cwd=self.home, base=self.env, timeout=180)


def last_json(out: str) -> Any:
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """A store with agent `crm` trained once (1 iteration on the first sample prospect)."""
    cli = Cli(tmp_path_factory.mktemp("cli-agents"))
    empty = cli("agents", "list")
    assert empty.returncode == 0 and "no agents yet" in empty.stdout
    run = cli("learn-loop", "1", "--group-size", "4", "--agent", "crm", "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    cli.first_run = last_json(run.stdout)["run_id"]  # type: ignore[attr-defined]
    (cli.home / "leads.csv").write_text(PIPEDRIVE, encoding="utf-8-sig", newline="")
    return cli


def test_agents_list_and_show(cli: Cli) -> None:
    listed = cli("agents", "list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split()[:3] == ["crm", "v1", "embedded"]
    as_json = json.loads(cli("agents", "list", "--json").stdout)
    assert as_json["count"] == 1 and as_json["agents"][0]["busy_with"] is None
    shown = cli("agents", "show", "crm")
    assert shown.returncode == 0, shown.stderr
    agent = json.loads(shown.stdout)
    assert agent["latest_version"] == 1 and agent["policy"] == "embedded"
    assert agent["lineage"]["runs"] == [cli.first_run]  # type: ignore[attr-defined]
    assert agent["config"]["group_size"] == 4
    assert (cli.results / "agents" / "crm" / "v1" / "policy.json").exists()

    missing = cli("agents", "show", "nobody")
    assert missing.returncode == 2 and "'nobody'" in missing.stderr
    bad = cli("agents", "show", "../etc")
    assert bad.returncode == 2 and "invalid agent name" in bad.stderr


def test_write_csv_in_csv_out(cli: Cli) -> None:
    out = cli.home / "emails.csv"
    r = cli("write", "--agent", "crm", "--leads", "leads.csv", "-o", str(out))
    assert r.returncode == 0, r.stderr
    # Bad rows by the row a spreadsheet shows (Ines's note spans two lines, one row).
    assert "leads.csv: row 3: no name" in r.stderr
    assert "leads.csv: row 4: email 'tom@reed' is not an email address" in r.stderr
    assert "2 emails written with crm v1" in r.stderr and "2 rows skipped" in r.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [r["Person - Name"] for r in rows] == ["Ines Duarte", "Mei Chen"]
    ines = rows[0]
    # The input's columns first, as given (a deal's title passed through), then the email.
    assert list(ines)[:6] == PIPEDRIVE.split("\r\n")[0].split(";")
    assert ines["Deal - Title"] == "Q3 renewal"
    assert ines["Person - Notes"].startswith("Two reefer loads lost in June;")
    assert "Ines" in ines["email_body"].splitlines()[0]  # greeted by first name
    assert ines["email_subject"] and ines["email_citations"]
    assert 0 < float(ines["reward"]) <= 1 and ines["judge_reasons"]
    assert ines["email_key"].startswith("sha256:")
    # Every email written is in the agent's log, so a rating of it finds its agent.
    log = (cli.results / "agents" / "crm" / "emails.jsonl").read_text()
    assert ines["email_key"] in log and "ines@vinhos.pt" in log


def test_write_json_in_json_out_and_stdout(cli: Cli) -> None:
    leads = [
        {"name": "Dr. Amara Osei", "title": "COO", "company": "Osei Fresh", "email": "a@o.co"},
        {"First Name": "Jo", "Last Name": "Park", "Company Name": "Park Dairy", "Owner": "Ann"},
        {"company": "no one"},
    ]
    (cli.home / "leads.json").write_text(json.dumps(leads))
    r = cli("write", "--agent", "crm", "--leads", "leads.json", "-o", "emails.json")
    assert r.returncode == 0, r.stderr
    assert "leads.json: row 3: no name" in r.stderr
    out = json.loads((cli.home / "emails.json").read_text())
    assert out["agent"] == "crm" and out["agent_version"] == 1
    assert out["problems"] == [
        {"row": 3, "error": "no name: first name / last name or name are empty"}
    ]
    amara, jo = out["emails"]
    # By first name, or formally by title and surname (DESIGN §3): never "Dr." or
    # "Osei" read as the first name.
    greeting = amara["email"]["body"].splitlines()[0]
    assert greeting.endswith((" Amara,", " Dr. Osei,")), greeting
    assert jo["lead"]["Owner"] == "Ann" and jo["row"] == 2
    for e in out["emails"]:
        assert e["email_key"].startswith("sha256:") and e["reasons"] and e["email"]["citations"]

    # No -o: the same JSON on stdout; CSV in, JSON out.
    r = cli("write", "--agent", "crm", "--leads", "leads.csv")
    assert r.returncode == 0, r.stderr
    printed = json.loads(r.stdout)
    assert [e["row"] for e in printed["emails"]] == [2, 5]
    assert [p["row"] for p in printed["problems"]] == [3, 4]


def test_write_with_a_graph(cli: Cli, shared_kg: Path) -> None:
    # The agent's own graph, given as a file: the same node ids, so it writes.
    own = cli.home / "own-graph.json"
    own.write_text((cli.results / "agents" / "crm" / "v1" / "graph.json").read_text())
    r = cli("write", "--agent", "crm", "--leads", "leads.csv", "--graph", str(own))
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["emails"]) == 2

    # Another graph: refused, naming both graphs; nothing written.
    other = shared_kg / "weave-feedback-5.json"
    r = cli("write", "--agent", "crm", "--leads", "leads.csv", "--graph", str(other), "-o", "x.csv")
    assert r.returncode == 2
    agent = json.loads(cli("agents", "show", "crm").stdout)
    assert agent["graph_hash"] in r.stderr and "(5 nodes)" in r.stderr
    assert not (cli.home / "x.csv").exists()


def test_write_refuses_clearly(cli: Cli) -> None:
    r = cli("write", "--agent", "ghost", "--leads", "leads.csv")
    assert r.returncode == 2 and "'ghost'" in r.stderr
    r = cli("write", "--agent", "crm", "--leads", "missing.csv")
    assert r.returncode == 2 and "missing.csv" in r.stderr and "No such file" in r.stderr
    (cli.home / "nameless.csv").write_text("Owner,Stage\nAnn,lead\n")
    r = cli("write", "--agent", "crm", "--leads", "nameless.csv")
    assert r.returncode == 2 and "no name column" in r.stderr and "'Owner'" in r.stderr
    # Every row bad: the first 100 listed, the rest counted, and exit 1.
    (cli.home / "bad-rows.csv").write_text("Name,Email\n" + "X,not-an-address\n" * 150)
    r = cli("write", "--agent", "crm", "--leads", "bad-rows.csv", "-o", "none.csv")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert sum(": row " in ln for ln in lines) == 100 and "row 101:" in r.stderr
    assert "50 more rows skipped" in r.stderr and "0 emails written" in r.stderr
    (cli.home / "broken.json").write_text('[{"name": "A"')
    r = cli("write", "--agent", "crm", "--leads", "broken.json")
    assert r.returncode == 2 and "broken.json" in r.stderr
    assert len(r.stderr) < 600


def test_outcomes_by_lead_email_then_continue_the_agent(cli: Cli) -> None:
    # Written for Mei, then outcomes name her by her address.
    assert cli("write", "--agent", "crm", "--leads", "leads.csv").returncode == 0
    outcomes = cli.home / "outcomes.csv"
    outcomes.write_text("Person - Email - Work;Status\nmei@coldchain.co;Meeting booked\n"
                        "ghost@example.com;replied\nmei@coldchain.co;teleported\n")  # fmt: skip
    r = cli("agents", "import-outcomes", "crm", str(outcomes))
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["imported"] == 1 and [p["row"] for p in report["problems"]] == [3, 4]
    assert "teleported" in report["problems"][1]["error"]
    rows = (cli.results / "feedback" / "crm.jsonl").read_text().splitlines()
    assert json.loads(rows[-1])["outcome"] == "call_booked"

    run = cli("learn-loop", "1", "--agent", "crm", "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    second = last_json(run.stdout)["run_id"]
    agent = json.loads(cli("agents", "show", "crm").stdout)
    assert agent["latest_version"] == 2 and agent["history"][0]["parent_version"] == 1
    assert agent["lineage"]["runs"] == [cli.first_run, second]  # type: ignore[attr-defined]
    assert agent["config"]["group_size"] == 4  # the agent's setting, not the default
    assert agent["feedback"]["online"] == 1
