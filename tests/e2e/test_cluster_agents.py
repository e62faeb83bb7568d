"""An agent in celery mode, with real parts only: Debian's redis-server, `codreamer
worker` processes and two `codreamer api` replicas sharing one results directory.

- A run naming an agent, posted to one replica, runs on a worker and records v1.
- While it is held at its start (codreamer/store/gate.py), a second run continuing the
  same agent, posted to the other replica, gets 409 naming the first run: the lock is
  in the shared store, so it holds across replicas.
- The first worker is stopped and another started: the second run continues the agent
  on that worker, from v1, and records v2, whose lineage names both runs.
- Either replica then writes for leads with v2.

While its first run goes on, the agent is listed with no version, busy with that run.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.support.api import follow, weave_request
from tests.support.cluster import CELERY_E2E, RedisServer, Worker, cluster_env, replica
from tests.support.event_gate import EventGate

pytestmark = CELERY_E2E

FIRST = {**weave_request(), "iterations": 1, "group_size": 4, "agent": "cel"}
LEADS_CSV = (
    "\ufeffFirst Name,Last Name,Email,Job Title,Company Name,Industry\r\n"
    "Dana,Lopez,dana@corpus.ai,Head of ML,Corpus Labs,AI\r\n"
)


def test_an_agent_continued_on_another_worker(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    results = tmp_path / "shared-results"
    gate = EventGate()
    gate.hold(lambda _run, e: e["type"] == "run_started")
    env = cluster_env(redis, results, **gate.env)
    first_worker = Worker(tmp_path / "worker-a", env)
    second_worker = Worker(tmp_path / "worker-b", env)
    a, b = (replica(tmp_path / f"replica-{i}", env, results) for i in ("a", "b"))
    try:
        first_worker.start()
        a.start()
        b.start()

        first = a.post_run(FIRST)
        assert first["agent"] == "cel" and first["agent_version"] is None
        held = gate.next_held(timeout=120)
        assert held.run_id == first["run_id"] and first_worker.owns(held.pid)
        # Live on a worker: the other replica refuses a second run on the agent.
        r = httpx.post(f"{b.url}/learn-loop", json={"agent": "cel", "iterations": 1}, timeout=10)
        assert r.status_code == 409, r.text
        assert first["run_id"] in r.text and "cel" in r.text
        assert len(list((results / "runs").iterdir())) == 1  # nothing half-started
        # Being made: listed with no version yet, and who is making it.
        making = httpx.get(f"{b.url}/agents/cel", timeout=10).json()
        assert making["latest_version"] is None and making["busy_with"] == first["run_id"]
        listed = httpx.get(f"{b.url}/agents", timeout=10).json()["agents"]
        assert [(x["name"], x["busy_with"]) for x in listed] == [("cel", first["run_id"])]
        held.release()
        follow(a.url + first["events_url"])
        done = a.status(first["run_id"])
        assert done["status"] == "succeeded" and done["agent_version"] == 1
        assert (results / "agents" / "cel" / "v1" / "policy.json").exists()
        assert not (results / "agents" / "cel" / "lock.json").exists()

        # The worker that made v1 is gone; another continues the agent.
        first_worker.stop()
        second_worker.start()
        second = b.post_run({"agent": "cel", "iterations": 1})
        assert second["agent_version"] == 1  # started from v1, on the agent's graph
        held = gate.next_held(timeout=120)
        assert held.run_id == second["run_id"] and second_worker.owns(held.pid)
        gate.release_all()
        follow(b.url + second["events_url"])
        done = a.status(second["run_id"])
        assert done["status"] == "succeeded" and done["agent_version"] == 2

        agent = httpx.get(f"{a.url}/agents/cel", timeout=10).json()
        assert agent["latest_version"] == 2 and agent["busy_with"] is None
        assert agent["lineage"]["runs"] == [first["run_id"], second["run_id"]]
        assert agent["history"][0]["parent_version"] == 1
        assert agent["config"]["group_size"] == 4  # kept from v1: not given again
        v1_policy = json.loads((results / "agents" / "cel" / "v1" / "policy.json").read_text())
        v2_policy = json.loads((results / "agents" / "cel" / "v2" / "policy.json").read_text())
        assert v1_policy != v2_policy  # the second run trained on from v1

        r = httpx.post(
            f"{b.url}/agents/cel/emails",
            content=LEADS_CSV.encode(),
            headers={"Content-Type": "text/csv"},
            timeout=60,
        )
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["agent_version"] == 2 and out["problems"] == []
        (dana,) = out["emails"]
        assert dana["email_key"].startswith("sha256:") and dana["lead"]["Job Title"] == "Head of ML"
    finally:
        gate.close()
        for server in (a, b):
            server.stop()
        for w in (first_worker, second_worker):
            w.stop()
        redis.stop()
