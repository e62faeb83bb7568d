"""Agents against a real API: a run records a version, a second run on the agent
while the first is live is refused (409), the agent continues after the API is
restarted, an incompatible graph is refused naming both graphs; writing for leads
(CSV as a CRM exports it, JSON; a large batch as a job followed by SSE); ratings and
outcomes kept per agent in the results store; GET /runs lists who, agent, reward."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.api import ApiServer, follow, weave_graph_variant, weave_request

pytestmark = pytest.mark.e2e


def run_to_end(api: ApiServer, body: dict[str, Any]) -> dict[str, Any]:
    accepted = api.post_run(body)
    follow(api.url + accepted["events_url"])
    return {**api.status(accepted["run_id"]), "started_from": accepted["agent_version"]}


CRM_CSV = (
    "FIRST NAME;last_name;E-mail Address;Job Title;Company Name;Sector;Lead Notes;Owner\n"
    "Dana;Lopez;dana@example.com;Head of ML;Corpus Labs;AI;Needs cleaner training data;Ann\n"
    ";;nobody@example.com;CTO;Nameless;AI;;Bob\n"
    "Omar;Haddad;omar@example;VP Data;DataCo;Software;;Cy\n"
    "Mei;Chen;mei@example.com;Data Lead;Tensorly;AI;Reviews of labels take weeks;Di\n"
)


def test_agent_versions_lock_restart_and_graph_check(tmp_path: Path) -> None:
    body = {**weave_request(), "iterations": 1, "group_size": 4, "agent": "team-a"}
    api = ApiServer(tmp_path).start()
    try:
        first = api.post_run(body)
        assert first["agent"] == "team-a" and first["agent_version"] is None
        # While the first run is live, the agent is taken.
        r = httpx.post(f"{api.url}/learn-loop", json=body, timeout=10)
        assert r.status_code == 409, r.text
        assert first["run_id"] in r.text and "team-a" in r.text
        follow(api.url + first["events_url"])
        assert api.status(first["run_id"])["status"] == "succeeded"
        agent = httpx.get(f"{api.url}/agents/team-a", timeout=10).json()
        assert agent["latest_version"] == 1 and agent["busy_with"] is None
        assert agent["lineage"]["runs"] == [first["run_id"]]
        assert (api.results / "agents" / "team-a" / "v1" / "policy.json").exists()
    finally:
        api.stop()

    api = ApiServer(tmp_path, port=api.port).start()  # a new process on the same store
    try:
        listed = httpx.get(f"{api.url}/agents", timeout=10).json()
        assert [a["name"] for a in listed["agents"]] == ["team-a"]
        # No graph given: the agent's own graph and prospects.
        second = run_to_end(api, {"agent": "team-a", "iterations": 1})
        assert second["started_from"] == 1 and second["agent_version"] == 2
        assert second["status"] == "succeeded"
        agent = httpx.get(f"{api.url}/agents/team-a", timeout=10).json()
        assert agent["latest_version"] == 2
        assert agent["lineage"]["runs"] == [first["run_id"], second["run_id"]]
        assert agent["history"][0]["parent_version"] == 1

        other = [dict(n, id=f"{n['id']} 2") if n["id"] not in ("Customer Job", "Product Feature")
                 else n for n in weave_graph_variant(0)]  # fmt: skip
        for n in other:
            for e in n.get("edge", []):
                if e["target_id"] not in ("Customer Job", "Product Feature"):
                    e["target_id"] = f"{e['target_id']} 2"
        r = httpx.post(f"{api.url}/learn-loop", json={"agent": "team-a", "graph": other})
        assert r.status_code == 409, r.text
        v2_hash = agent["graph_hash"]
        assert v2_hash in r.text and "the request's graph is graph sha256:" in r.text
        assert not list((api.results / "runs").glob("*"))[2:]  # nothing half-started

        bad = httpx.post(f"{api.url}/learn-loop", json={"agent": "../x"}, timeout=10)
        assert bad.status_code == 422 and "agent" in bad.text
        assert httpx.get(f"{api.url}/agents/nobody", timeout=10).status_code == 404

        runs = httpx.get(f"{api.url}/runs", params={"limit": 1}, timeout=10).json()
        assert runs["total"] == 2 and runs["next_offset"] == 1
        newest = runs["runs"][0]
        assert newest["run_id"] == second["run_id"] and newest["agent"] == "team-a"
        assert newest["agent_version"] == 2 and newest["final_reward"] > 0
        assert newest["prospects"] and newest["prospects"][0]["name"]
        page2 = httpx.get(f"{api.url}/runs", params={"limit": 1, "offset": 1}, timeout=10)
        assert page2.json()["runs"][0]["run_id"] == first["run_id"]
        assert page2.json()["next_offset"] is None
        email = api.status(second["run_id"])["latest_email"]
        assert email["email_key"].startswith("sha256:")
    finally:
        api.stop()


def test_writing_for_leads_ratings_and_outcomes(tmp_path: Path) -> None:
    api = ApiServer(tmp_path).start()
    try:
        r = httpx.post(f"{api.url}/agents/nobody/emails", json=[{"name": "A"}], timeout=10)
        assert r.status_code == 404
        run_to_end(api, {**weave_request(), "iterations": 1, "group_size": 4, "agent": "w"})

        r = httpx.post(
            f"{api.url}/agents/w/emails",
            content=CRM_CSV.encode(),
            headers={"Content-Type": "text/csv"},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        out = r.json()
        assert [p["row"] for p in out["problems"]] == [3, 4]
        assert "no name" in out["problems"][0]["error"]
        assert "email" in out["problems"][1]["error"]
        dana, mei = out["emails"]
        assert dana["row"] == 2 and mei["row"] == 5
        assert dana["lead"]["Owner"] == "Ann"  # unknown columns passed through
        assert "Dana" in dana["email"]["body"] and dana["email"]["citations"]
        assert 0 < dana["reward"] <= 1 and dana["reasons"]
        assert dana["email_key"].startswith("sha256:")

        plain = httpx.post(f"{api.url}/agents/w/emails", content=b"x", timeout=10,
                           headers={"Content-Type": "text/plain"})  # fmt: skip
        assert plain.status_code == 415

        # A rating names the email by its key; it lands in the agent's own file.
        rating = {"type": "human_preference", "email_key": dana["email_key"], "value": 1.0}
        r = httpx.post(f"{api.url}/feedback", json=rating, timeout=10)
        assert r.status_code == 201, r.text
        assert r.json()["event"]["agent"] == "w"
        rows = (api.results / "feedback" / "w.jsonl").read_text().splitlines()
        assert json.loads(rows[-1])["email_key"] == dana["email_key"]
        assert (api.data / "feedback.jsonl").read_text() == ""

        outcomes = "Email,Outcome\nmei@example.com,Call Booked\nghost@example.com,replied\n"
        r = httpx.post(f"{api.url}/agents/w/outcomes", content=outcomes.encode(),
                       headers={"Content-Type": "text/csv"}, timeout=10)  # fmt: skip
        assert r.status_code == 200, r.text
        assert r.json()["imported"] == 1 and r.json()["problems"][0]["row"] == 3
        last = json.loads((api.results / "feedback" / "w.jsonl").read_text().splitlines()[-1])
        assert last == {**last, "email_key": mei["email_key"], "outcome": "call_booked"}

        # A large batch becomes a job with progress and an event stream.
        leads = [{"name": f"Lead {i}", "title": "CTO", "company": f"Co {i}"} for i in range(150)]
        r = httpx.post(f"{api.url}/agents/w/emails", json={"leads": leads}, timeout=30)
        assert r.status_code == 202, r.text
        job = r.json()
        events = follow(api.url + job["events_url"])
        types = [e["type"] for e in events]
        assert types[0] == "job_queued" and types[-1] == "job_finished"
        assert any(e["type"] == "progress" and e["done"] < 150 for e in events)
        done = httpx.get(api.url + job["status_url"], timeout=30).json()
        assert done["status"] == "succeeded" and len(done["emails"]) == 150
        assert done["emails"][149]["lead"]["name"] == "Lead 149"
    finally:
        api.stop()
