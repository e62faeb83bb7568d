"""The page at a phone's 390x844 and a desktop's 1280x900, in every state a user meets.

Each state is checked for horizontal overflow, every graph node on screen and
readable, and saved to test-artifacts/screen-<state>-<size>.png. Mock data,
dreaming and mid-run use the scripted backend (a real run passes them in
milliseconds); the final email, the 16-node graph and the interrupted run come
from the real API.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.api import ApiServer
from tests.support.browser import RUN_TIMEOUT_MS, launch_browser, open_tab
from tests.support.dashboard import (
    DESKTOP,
    ScriptedBackend,
    check_layout,
    click_generate,
    payload,
    post_webhook,
    resize,
    screens,
    webhooks_to,
)
from tests.support.event_gate import EventGate
from tests.support.paths import REPO
from tests.support.server import free_port, serve_in_thread
from web.app import create_app
from web.config import WebSettings

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SECRET = "screens-shared-secret"
CLOSED = "http://127.0.0.1:9"
EXAMPLES = REPO / "examples"
FIVE = json.loads((EXAMPLES / "learn-loop-5-nodes.request.json").read_text())["graph"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


def _counts(console_text: str) -> bool:
    return "Content Security Policy" in console_text or "Error" in console_text


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    with open_tab(browser, DESKTOP, console_error=_counts) as page:
        yield page


def five_scores(k: int) -> dict[str, float]:
    # Scores start at the neutral 0.5 and drift apart as the run learns.
    drift = [0.006, -0.005, 0.01, 0.002, 0.014]
    return {n["id"]: round(0.5 + d * k, 3) for n, d in zip(FIVE, drift, strict=True)}


def scripted_graph(app: Any) -> None:
    @app.get("/runs/{run_id}/graph")
    def graph(run_id: str) -> dict[str, Any]:
        return {
            "run_id": run_id,
            "iteration": None,
            "nodes": [{"id": n["id"], "content": n["content"], "score": 0.5} for n in FIVE],
            "edges": [
                {"source": n["id"], "target": e["target_id"], "relationship": e["relationship"]}
                for n in FIVE
                for e in n["edge"]
            ],
        }


def test_mock_dreaming_and_mid_run(tab: Any) -> None:
    # Mock data: no backend at all.
    with serve_in_thread(create_app(WebSettings(api_url=CLOSED))) as url:
        tab.goto(url + "/")
        tab.locator("#mock-banner").wait_for(state="visible")
        assert "uv run codreamer" in tab.locator("#mock-banner").inner_text()
        screens(tab, "mock-data", expect_nodes=7)

    backend = ScriptedBackend()
    scripted_graph(backend.app)
    with serve_in_thread(backend.app) as api_url:
        settings = WebSettings(api_url=api_url, webhook_secret=SECRET)
        with serve_in_thread(create_app(settings)) as url:
            # An earlier run's email is on screen...
            old = payload(
                "api-20251231-235959-bbbbbb",
                "final",
                3,
                3,
                five_scores(3),
                ["Customer Job", "Product Feature"],
                "An older run's email",
            )
            post_webhook(url, SECRET, old)
            tab.goto(url + "/")
            tab.wait_for_selector("#backend-pill:has-text('connected')")
            assert "older run" in tab.locator("#email-subject").inner_text()
            # ...then a new run starts: it dreams, and the old email is gone.
            tab.fill("#p-name", "Morgan Lee")
            tab.fill("#p-company", "Brightline Software")
            tab.fill("#p-goal", "Secure a 20-minute discovery call")
            tab.fill("#iterations", "50")
            tab.click("#generate")
            run_id = backend.next_id
            tab.wait_for_selector(f"#run-status:has-text('{run_id}')")  # the backend has it
            backend.set(
                run_id,
                status="running",
                progress={"iteration": 0, "iterations": 50, "step": "baseline", "fraction": 0},
            )
            tab.locator("#dreaming").wait_for(state="visible")
            tab.wait_for_selector("#run-status:has-text('running')")
            assert "older run" not in tab.locator("#email").inner_text()
            assert tab.locator("#other-run").is_hidden()  # that result came before this run
            assert tab.locator("#email-subject").inner_text() == "Dreaming…"
            screens(tab, "dreaming")

            # A run started elsewhere (curl) posts: named, offered, not shown as ours.
            other = payload(
                "api-20260101-000001-cccccc",
                "baseline",
                0,
                2,
                five_scores(1),
                ["Customer Job"],
                "Someone else's run",
            )
            post_webhook(url, SECRET, other)
            tab.locator("#other-run").wait_for(state="visible")
            assert "api-20260101-000001-cccccc" in tab.locator("#other-run-text").inner_text()
            assert "Someone else" not in tab.locator("#email").inner_text()
            assert tab.locator("#dreaming").is_visible()

            # Mid-run: 30 of 50 iterations in, webhooks for each.
            for k in range(31):
                stage = "baseline" if k == 0 else "iteration"
                post_webhook(
                    url,
                    SECRET,
                    payload(
                        run_id,
                        stage,
                        k,
                        50,
                        five_scores(k),
                        [n["id"] for n in FIVE],
                        f"Iteration {k} email",
                    ),
                )
            backend.set(
                run_id,
                progress={"iteration": 30, "iterations": 50, "step": "score", "fraction": 0.6},
            )
            tab.wait_for_selector("#email-subject:has-text('Iteration 30 email')")
            tab.wait_for_selector("svg.graph-svg g.node >> nth=4")
            assert tab.locator("#dreaming").is_hidden()
            assert "running" in tab.locator("#run-status").inner_text()
            # Colours span the scores present (0.35 to 0.92 here), not a fixed 0 to 1.
            legend = tab.locator("#graph-legend").inner_text()
            assert "0.35" in legend and "0.92" in legend, legend
            tab.click("#reward-details summary")  # the table, explained, in the picture
            assert tab.locator(".reward-table tbody tr").count() == 31
            screens(tab, "mid-run", expect_nodes=5)
            assert_axis_readable(tab)


def assert_axis_readable(tab: Any) -> None:
    for width in (390, 1280):
        resize(tab, width, 900)
        boxes = tab.evaluate("""() => [...document.querySelectorAll('#chart-view .x-tick')]
            .map(t => { const r = t.getBoundingClientRect(); return [r.left, r.right]; })""")
        assert len(boxes) >= 3
        for (_, right), (left, _) in zip(boxes, boxes[1:], strict=False):
            assert right + 4 <= left, f"x-axis labels touch at {width}px: {boxes}"


def fill_prospect_from(tab: Any, scenario_file: Path) -> None:
    s = json.loads(scenario_file.read_text())
    p = s["prospect"]
    for field, key in (
        ("#p-name", "name"),
        ("#p-company", "company"),
        ("#p-title", "title"),
        ("#p-industry", "industry"),
        ("#p-notes", "notes"),
    ):
        tab.fill(field, p.get(key, ""))
    tab.fill("#p-tech", ", ".join(p.get("tech_stack", [])))
    tab.fill("#p-goal", s["goal"])


def run_to_final(tab: Any, graph_file: Path | None, scenario_file: Path | None) -> str:
    if scenario_file:
        fill_prospect_from(tab, scenario_file)
    if graph_file:
        tab.set_input_files("#graph-file", str(graph_file))
    tab.fill("#iterations", "3")
    tab.fill("#depth", "6")
    run_id = click_generate(tab)
    tab.wait_for_selector(f"#email-meta:has-text('run {run_id} · final')")
    tab.wait_for_selector(f"#run-status:has-text('{run_id} · succeeded')")
    return run_id


def test_final_sixteen_nodes_and_interrupted_against_the_real_api(tab: Any, tmp_path: Path) -> None:
    dash_port = free_port()
    gate = EventGate()  # lets every event through until `interrupted` holds one
    env = {**webhooks_to(dash_port, SECRET), **gate.env}
    api = ApiServer(tmp_path, env).start()
    try:
        settings = WebSettings(api_url=api.url, webhook_secret=SECRET)
        with serve_in_thread(create_app(settings), dash_port) as url:
            tab.goto(url + "/")
            tab.wait_for_selector("#backend-pill:has-text('connected')")
            tab.wait_for_selector("#form-source:has-text('from the backend')")
            assert tab.locator("#iterations").get_attribute("max") == "50"
            assert tab.locator("#depth").get_attribute("max") == "12"

            # The final email on the sample graph, for a preset prospect.
            tab.wait_for_selector("#preset option:nth-child(2)", state="attached")
            tab.select_option("#preset", index=1)
            assert tab.locator("#p-name").input_value()
            run_id = run_to_final(tab, None, None)
            assert tab.locator("#run-note").is_hidden()  # nothing to explain
            tab.wait_for_selector("svg.graph-svg g.node")
            screens(tab, "final", expect_nodes=16)

            # Our own 16-node graph with cycles, and our own prospect.
            tab.select_option("#preset", index=0)
            run16 = run_to_final(
                tab, EXAMPLES / "graph-16-nodes.json", EXAMPLES / "scenario-clinic-ops.json"
            )
            assert run16 != run_id
            assert "Amara" in tab.locator("#email-body").inner_text()
            tab.wait_for_selector("svg.graph-svg g.node >> nth=15")
            screens(tab, "graph-16-nodes", expect_nodes=16)

            interrupted(tab, api, url, gate)
    finally:
        api.stop()
        gate.close()


def interrupted(tab: Any, api: ApiServer, url: str, gate: EventGate) -> None:
    """Kill the API mid-run, restart it: the page offers Resume and Cancel, and both work."""
    # The run waits at the gate once iteration 1 is written: killed there, not after a
    # poll that a fast run may have outrun.
    gate.hold(lambda _run, e: e["type"] == "iteration_finished" and e.get("iteration") == 1)
    r = httpx.post(
        f"{url}/api/generate", json={"iterations": 20, "depth": 8, "group_size": 128}, timeout=10
    )
    assert r.status_code == 202, r.text
    run_id = r.json()["run_id"]
    tab.wait_for_selector(f"#run-status:has-text('{run_id}')")
    held = gate.next_held(timeout=60)
    assert held.run_id == run_id
    gate.hold(None)  # the resumed run goes through
    api.kill(signal.SIGKILL)
    api.stop()  # the run's own process goes with it
    tab.wait_for_selector("#run-status:has-text('backend unreachable')")
    assert tab.locator("#resume-run").is_hidden()
    api.start()  # the same port, results and data: a restart
    tab.wait_for_selector(f"#run-status:has-text('{run_id} · interrupted')", timeout=90_000)
    assert tab.locator("#resume-run").is_visible() and tab.locator("#cancel-run").is_visible()
    assert "Resume" in tab.locator("#run-note").inner_text()
    screens(tab, "interrupted")
    check_layout(tab)

    tab.click("#cancel-run")
    tab.wait_for_selector(f"#run-status:has-text('{run_id} · cancelled')")
    assert api.status(run_id)["status"] == "cancelled"
    tab.click("#resume-run")
    tab.wait_for_selector(f"#run-status:has-text('{run_id} · succeeded')", timeout=RUN_TIMEOUT_MS)
    tab.wait_for_selector(f"#email-meta:has-text('run {run_id} · final')")
    assert api.status(run_id)["status"] == "succeeded"
