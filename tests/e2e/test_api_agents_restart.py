"""An agent across API restarts, against real `codreamer api` processes on one results
directory:

- trained by one API process, it is listed, written with (CSV; a large batch as a
  job) and continued (v1 -> v2) by the next process;
- a run continuing it that was killed with its API is marked interrupted, its lock is
  stale and a new run takes the agent over; resuming the killed run then is refused
  (409) while the new run holds the agent, and still refused once the agent has moved
  on from the version the killed run started from: a resume never forks an agent;
- a killed run on an agent nobody moved on resumes, holds the agent while it goes on
  (a second run gets 409), and records the next version.

Runs are held at an exact event (codreamer/store/gate.py) to be killed there.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.api import ApiServer, follow, weave_request
from tests.support.event_gate import EventGate

pytestmark = pytest.mark.e2e

TRAIN = {**weave_request(), "iterations": 1, "group_size": 4}
HUBSPOT_CSV = (
    "\ufeffRecord ID,First Name,Last Name,Email,Job Title,Company Name,Industry,Lifecycle Stage\r\n"
    "7,Dana,Lopez,dana@corpus.ai,Head of ML,Corpus Labs,AI,lead\r\n"
    '8,Mei,Chen,mei@tensorly.io,"Director, Data",Tensorly,Software,"customer\r\nsince 2023"\r\n'
    "9,,,,CTO,Nameless,AI,lead\r\n"
)


def run_to_end(api: ApiServer, body: dict[str, Any]) -> dict[str, Any]:
    accepted = api.post_run(body)
    follow(api.url + accepted["events_url"])
    return {**api.status(accepted["run_id"]), "started_from": accepted["agent_version"]}


def resume(api: ApiServer, run_id: str) -> httpx.Response:
    # A JSON content type, as every POST the API takes (a foreign page cannot send one).
    return httpx.post(f"{api.url}/runs/{run_id}/resume", json={}, timeout=10)


def agent(api: ApiServer, name: str) -> dict[str, Any]:
    r = httpx.get(f"{api.url}/agents/{name}", timeout=10)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_written_with_and_continued_after_a_restart(tmp_path: Path) -> None:
    api = ApiServer(tmp_path).start()
    try:
        first = run_to_end(api, {**TRAIN, "agent": "crm"})
        assert first["status"] == "succeeded" and first["agent_version"] == 1
    finally:
        api.stop()

    api = ApiServer(tmp_path).start()  # a new process, a new port, the same store
    try:
        assert [a["name"] for a in httpx.get(f"{api.url}/agents").json()["agents"]] == ["crm"]
        r = httpx.post(
            f"{api.url}/agents/crm/emails",
            content=HUBSPOT_CSV.encode(),
            headers={"Content-Type": "text/csv; charset=utf-8"},
            timeout=60,
        )
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["agent_version"] == 1
        assert [(p["row"], p["error"][:7]) for p in out["problems"]] == [(4, "no name")]
        dana, mei = out["emails"]
        assert dana["lead"]["Record ID"] == "7" and mei["row"] == 3
        assert mei["lead"]["Lifecycle Stage"] == "customer\r\nsince 2023"
        assert "Mei" in mei["email"]["body"].splitlines()[0]
        assert all(e["email_key"].startswith("sha256:") for e in out["emails"])

        # The same, answered as CSV for the CRM to import back: its columns, then ours.
        r = httpx.post(
            f"{api.url}/agents/crm/emails?format=csv",
            content=HUBSPOT_CSV.encode(),
            headers={"Content-Type": "text/csv"},
            timeout=60,
        )
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
        assert (r.headers["x-skipped-count"], r.headers["x-skipped-rows"]) == ("1", "4")
        rows = list(csv.DictReader(io.StringIO(r.text)))
        assert list(rows[0])[:8] == HUBSPOT_CSV[1:].split("\r\n")[0].split(",")
        assert [x["email_key"] for x in rows] == [dana["email_key"], mei["email_key"]]
        assert rows[1]["Lifecycle Stage"] == "customer\r\nsince 2023"

        # A body of the wrong shape names what is wrong, and writes nothing.
        for body, where, says in [
            ({"prospects": [{"name": "A"}]}, "body", "unknown key(s) 'prospects'"),
            ({"leads": [{"name": "A"}], "goal": 5}, "goal", "expected text"),
            ({"leads": [], "sender": {"name": "Zoe", "bogus": 1}}, "sender.bogus", "Extra"),
        ]:
            r = httpx.post(f"{api.url}/agents/crm/emails", json=body, timeout=10)
            assert r.status_code == 422, r.text
            assert r.json()["problems"][0]["where"] == where and says in r.text

        # Saved by Excel on Windows and uploaded as such: Windows-1252, Excel's type.
        excel = "Full Name;Company Name;Notes\r\nJosé Müller;Café Zürich;“late” pallets\r\n"
        r = httpx.post(
            f"{api.url}/agents/crm/emails",
            content=excel.encode("cp1252"),
            headers={"Content-Type": "application/vnd.ms-excel"},
            timeout=60,
        )
        assert r.status_code == 200, r.text
        (jose,) = r.json()["emails"]
        assert jose["lead"] == {"Full Name": "José Müller", "Company Name": "Café Zürich",
                                "Notes": "“late” pallets"}  # fmt: skip
        assert "José" in jose["email"]["body"].splitlines()[0]

        leads = [{"Full Name": f"Lead {i}", "Title": "COO", "Account": f"Co {i}"}
                 for i in range(120)]  # fmt: skip
        r = httpx.post(f"{api.url}/agents/crm/emails", json=leads, timeout=30)
        assert r.status_code == 202, r.text
        events = follow(api.url + r.json()["events_url"])
        assert events[-1]["type"] == "job_finished" and events[-1]["written"] == 120
        job = httpx.get(api.url + r.json()["status_url"], timeout=30).json()
        assert job["agent_version"] == 1 and len(job["emails"]) == 120
        assert all(e["email_key"].startswith("sha256:") for e in job["emails"])
        as_csv = httpx.get(api.url + r.json()["status_url"], headers={"Accept": "text/csv"})
        rows = list(csv.DictReader(io.StringIO(as_csv.text)))
        assert len(rows) == 120 and rows[119]["Full Name"] == "Lead 119"
        assert rows[0]["email_key"] == job["emails"][0]["email_key"]

        second = run_to_end(api, {"agent": "crm", "iterations": 1})
        assert second["started_from"] == 1 and second["agent_version"] == 2
        shown = agent(api, "crm")
        assert shown["lineage"]["runs"] == [first["run_id"], second["run_id"]]
        assert shown["history"][0]["parent_version"] == 1

        r = httpx.post(f"{api.url}/agents/crm/emails", json=[{"name": "Ana Ruiz"}], timeout=30)
        assert r.status_code == 200 and r.json()["agent_version"] == 2
    finally:
        api.stop()


def test_a_resume_never_forks_an_agent(tmp_path: Path) -> None:
    gate = EventGate()
    env = gate.env
    api = ApiServer(tmp_path, env).start()
    try:
        v1 = run_to_end(api, {**TRAIN, "agent": "k"})
        assert v1["agent_version"] == 1
        gate.hold(lambda _run, e: e["type"] == "run_started")
        killed = api.post_run({"agent": "k", "iterations": 1})
        held = gate.next_held()
        assert held.run_id == killed["run_id"]
        api.stop()  # the API and its run processes, at once
        held.wait_gone()
    finally:
        api.stop()

    api = ApiServer(tmp_path, env).start()
    try:
        assert api.status(killed["run_id"])["status"] == "interrupted"
        assert agent(api, "k")["busy_with"] is None  # the killed run's lock is stale
        taker = api.post_run({"agent": "k", "iterations": 1})
        assert taker["agent_version"] == 1
        held = gate.next_held()
        assert held.run_id == taker["run_id"]

        r = resume(api, killed["run_id"])
        assert r.status_code == 409, r.text
        assert taker["run_id"] in r.text
        assert api.status(killed["run_id"])["status"] == "interrupted"

        gate.release_all()
        follow(api.url + taker["events_url"])
        assert api.status(taker["run_id"])["agent_version"] == 2

        # The agent moved on from v1, where the killed run started: resuming it would
        # record a second child of v1 beside v2.
        r = resume(api, killed["run_id"])
        assert r.status_code == 409, r.text
        assert "v1" in r.text and "v2" in r.text and "'k'" in r.text
        assert api.status(killed["run_id"])["status"] == "interrupted"
        assert agent(api, "k")["busy_with"] is None

        # Killed again, with nobody moving the agent on: the resume goes through.
        gate.hold(lambda _run, e: e["type"] in ("run_started", "run_resumed"))
        last = api.post_run({"agent": "k", "iterations": 1})
        assert gate.next_held().run_id == last["run_id"]
        api.stop()
    finally:
        api.stop()

    api = ApiServer(tmp_path, env).start()
    try:
        r = resume(api, last["run_id"])
        assert r.status_code == 202, r.text
        held = gate.next_held()
        assert held.run_id == last["run_id"]  # going on again, held at its start
        assert agent(api, "k")["busy_with"] == last["run_id"]
        r = httpx.post(f"{api.url}/learn-loop", json={"agent": "k"}, timeout=10)
        assert r.status_code == 409 and last["run_id"] in r.text
        gate.release_all()
        follow(api.url + last["events_url"])
        shown = agent(api, "k")
        assert shown["latest_version"] == 3 and shown["history"][0]["parent_version"] == 2
        assert shown["lineage"]["runs"] == [v1["run_id"], taker["run_id"], last["run_id"]]
        assert shown["busy_with"] is None
    finally:
        api.stop()
        gate.close()
