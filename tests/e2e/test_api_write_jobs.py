"""Write jobs (a large batch of leads) with two `codreamer api` processes on one results
store, as replicas run: a replica starting up leaves the other's live job alone (its
process holds the job's lock), while a job whose API was killed is marked interrupted
by the next one to start, and its event stream ends saying so. Jobs are held at an
exact event (codreamer/store/gate.py), never raced with sleeps."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.support.api import ApiServer, weave_request
from tests.support.api import follow_stream as follow
from tests.support.event_gate import EventGate

pytestmark = pytest.mark.e2e

LEADS = [{"Full Name": f"Lead {i}", "Job Title": "COO", "Company": f"Co {i}"} for i in range(150)]


def test_a_replica_starting_leaves_live_jobs_alone_and_ends_dead_ones(tmp_path: Path) -> None:
    gate = EventGate()
    results = tmp_path / "shared-results"
    servers: list[ApiServer] = []

    def start(name: str) -> ApiServer:
        server = ApiServer(tmp_path / name, gate.env)
        server.results = results
        server.env["CODREAMER_RESULTS_DIR"] = str(results)
        servers.append(server.start())
        return server

    try:
        a = start("a")
        run = a.post_run({**weave_request(), "iterations": 1, "group_size": 4, "agent": "j"})
        follow(a.url + run["events_url"])
        assert a.status(run["run_id"])["agent_version"] == 1

        gate.hold(lambda _job, e: e["type"] == "progress")
        r = httpx.post(f"{a.url}/agents/j/emails", json=LEADS, timeout=30)
        assert r.status_code == 202, r.text
        live = r.json()
        held = gate.next_held()
        assert held.run_id == live["job_id"]

        b = start("b")  # starting up, it looks for jobs a dead process left behind
        seen = httpx.get(b.url + live["status_url"], timeout=10).json()
        assert seen["status"] == "running" and seen["progress"]["done"] < 150
        gate.release_all()
        events, end = follow(b.url + live["events_url"])
        assert end["status"] == "succeeded"
        assert [e["type"] for e in events if e["type"].startswith("job_")] == [
            "job_queued",
            "job_started",
            "job_finished",
        ]

        # A job whose API is killed is ended by the next API to start.
        gate.hold(lambda _job, e: e["type"] == "progress")
        r = httpx.post(f"{a.url}/agents/j/emails", json=LEADS, timeout=30)
        assert r.status_code == 202, r.text
        dead = r.json()
        held = gate.next_held()
        assert held.run_id == dead["job_id"]
        a.stop()
        held.wait_gone()
        gate.release_all()
        assert httpx.get(b.url + dead["status_url"], timeout=10).json()["status"] == "running"
        c = start("c")
        events, end = follow(c.url + dead["events_url"])
        assert end["status"] == "interrupted" and events[-1]["type"] == "job_interrupted"
        job = httpx.get(b.url + dead["status_url"], timeout=10).json()
        assert job["status"] == "interrupted" and job["emails"] is None
    finally:
        for server in servers:
            server.stop()
        gate.close()
