"""Run management against a real API: many concurrent runs kept apart, and a run that
survives a SIGKILL of the API (interrupted -> resumed -> the same result)."""

from __future__ import annotations

import json
import re
import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.support.api import ApiServer, weave_graph_variant
from tests.support.event_gate import EventGate
from tests.support.paths import KG

pytestmark = pytest.mark.e2e


def test_twenty_concurrent_runs_with_different_graphs_stay_apart(tmp_path: Path) -> None:
    server = ApiServer(tmp_path, {"CODREAMER_MAX_QUEUED_RUNS": "32"}).start()
    try:
        bodies = [
            {
                "graph": weave_graph_variant(i),
                "iterations": 2,
                "depth": 5,
                "group_size": 4,
                "seed": i,
            }
            for i in range(20)
        ]
        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(server.post_run, bodies))
        run_ids = [a["run_id"] for a in answers]
        assert len(set(run_ids)) == 20
        for i, run_id in enumerate(run_ids):
            st = server.wait(run_id, timeout=180)
            assert st["status"] == "succeeded", st
            marker = f"[variant {i}]"
            graph = httpx.get(f"{server.url}/runs/{run_id}/graph", timeout=10).json()
            assert all(n["content"].startswith(marker) for n in graph["nodes"])
            assert graph["iteration"] == 2
            assert len(graph["edges"]) == 4
            stored = json.loads((server.run_dir(run_id) / "graph.json").read_text())
            assert [n["content"] for n in stored] == [n["content"] for n in bodies[i]["graph"]]
            scores = json.loads((server.run_dir(run_id) / "iter2_node_scores.json").read_text())
            assert set(scores) == {n["id"] for n in bodies[i]["graph"]}
            assert {n["id"]: n["score"] for n in graph["nodes"]} == scores
            body = st["latest_email"]["email"]["body"]
            others = set(re.findall(r"\[variant (\d+)\]", body)) - {str(i)}
            assert not others, f"run {i} email mentions variants {others}"
    finally:
        server.stop()


def test_sigkill_of_the_api_interrupts_a_run_that_resumes_to_the_same_end(
    tmp_path: Path,
) -> None:
    graph = json.loads((KG / "synthetic-data-16.json").read_text())
    body = {"graph": graph, "iterations": 8, "depth": 6, "group_size": 48, "seed": 11}
    gate = EventGate()
    # The run waits at the gate once iteration 2 is written: the API dies there, not
    # wherever a poll happened to see it (a fast run could finish first).
    gate.hold(lambda _run, e: e["type"] == "iteration_finished" and e.get("iteration") == 2)
    first = ApiServer(tmp_path, gate.env).start()
    try:
        run_id = first.post_run(body)["run_id"]
        held = gate.next_held(timeout=120)
        assert held.run_id == run_id
        first.kill(signal.SIGKILL)  # the API process only: its run process must follow
        held.wait_gone()  # the orphaned run process noticed its parent is gone
    finally:
        first.stop()
        gate.close()
    assert json.loads((first.run_dir(run_id) / "meta.json").read_text())["status"] == "running"

    second = ApiServer(tmp_path, port=first.port).start()
    try:
        st = second.status(run_id)
        assert st["status"] == "interrupted", st
        assert 2 <= st["progress"]["iteration"] < 8
        r = httpx.post(f"{second.url}/runs/{run_id}/resume", json={}, timeout=10)
        assert r.status_code == 202, r.text
        resumed = second.wait(run_id, timeout=120)
        assert resumed["status"] == "succeeded", resumed
        # Resuming again is refused: it already succeeded.
        again = httpx.post(f"{second.url}/runs/{run_id}/resume", json={}, timeout=10)
        assert again.status_code == 409

        # The same request without interruption ends identically.
        clean_id = second.post_run(body)["run_id"]
        clean = second.wait(clean_id, timeout=120)
        assert clean["status"] == "succeeded"
        assert resumed["latest_email"]["email"] == clean["latest_email"]["email"]
        final_a = json.loads((second.run_dir(run_id) / "final_email.json").read_text())
        final_b = json.loads((second.run_dir(clean_id) / "final_email.json").read_text())
        assert final_a["email"] == final_b["email"]
        scores_a = (second.run_dir(run_id) / "iter8_node_scores.json").read_text()
        scores_b = (second.run_dir(clean_id) / "iter8_node_scores.json").read_text()
        assert scores_a == scores_b
        log = second.run_dir(run_id) / "events.jsonl"
        events = [json.loads(x) for x in log.read_text().splitlines()]
        types = [e["type"] for e in events]
        assert "run_interrupted" in types and "run_resumed" in types
        assert types[-1] == "run_finished"
    finally:
        second.stop()
