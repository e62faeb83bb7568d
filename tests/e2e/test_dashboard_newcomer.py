"""What a newcomer meets on the dashboard, against the real API: every preset starts a
run (a held-out sample alone trains on itself, and the page says so), and a graph
with near-miss names gets each problem once, with "did you mean".

Screenshots: test-artifacts/screen-<state>-<size>.png at 390x844 and 1280x900.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from codreamer.store.feedback import feedback_file
from tests.support.api import ApiServer
from tests.support.browser import RUN_TIMEOUT_MS, launch_browser, open_tab
from tests.support.dashboard import (
    DESKTOP,
    click_generate,
    dashboard_with_api,
    resize,
    screens,
    webhooks_to,
)
from tests.support.paths import REPO
from tests.support.server import free_port, serve_in_thread
from web.app import create_app
from web.config import WebSettings

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SECRET = "newcomer-shared-secret"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    with open_tab(browser, DESKTOP) as page:
        yield page


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, ApiServer]]:
    with dashboard_with_api(tmp_path, SECRET) as (url, api):
        yield url, api


def open_page(tab: Any, url: str) -> None:
    tab.goto(url + "/")
    tab.wait_for_selector("#backend-pill:has-text('connected')")
    tab.wait_for_selector("#preset option:nth-child(2)", state="attached")


def test_every_preset_starts_a_run(tab: Any, site: tuple[str, ApiServer]) -> None:
    url, api = site
    open_page(tab, url)
    presets = tab.eval_on_selector_all("#preset option", "os => os.map(o => o.value)")[1:]
    samples = json.loads((api.data / "scenarios.json").read_text())
    held = {s["id"] for s in samples if s.get("held_out")}
    assert len(presets) >= 8 and held <= set(presets)
    started: list[str] = []
    for preset in presets:
        tab.select_option("#preset", preset)
        tab.fill("#iterations", "1")
        tab.fill("#depth", "3")
        run_id = click_generate(tab)
        assert tab.locator("#generate-error").is_hidden()
        plan = tab.locator("#run-plan")
        if preset in held:
            assert plan.is_visible()
            assert f"'{preset}' is a held-out sample prospect" in plan.inner_text()
            assert "trains on it" in plan.inner_text()
        else:
            assert plan.is_hidden()
        tab.wait_for_selector(
            f"#run-status:has-text('{run_id} · succeeded')", timeout=RUN_TIMEOUT_MS
        )
        if preset in held:
            screens(tab, "held-out-preset")
        started.append(run_id)

    # The past runs, newest first; an older one opens on click, with its own email.
    items = tab.locator("#run-list button")
    tab.wait_for_selector(f"#run-list button[data-run-id='{started[-1]}']")
    assert items.first.get_attribute("data-run-id") == started[-1]
    tab.click(f"#run-list button[data-run-id='{started[0]}']")
    tab.wait_for_selector(f"#run-status:has-text('Run {started[0]} · succeeded')")
    tab.wait_for_selector(f"#email-meta:has-text('run {started[0]}')")
    screens(tab, "past-run-opened")


def test_graph_errors_are_shown_once_with_did_you_mean(
    tab: Any, site: tuple[str, ApiServer], tmp_path: Path
) -> None:
    url, _ = site
    open_page(tab, url)
    graph = [
        {"id": "Customer job", "content": "x", "edges": [{"target": "Pour loss"}]},
        {"id": "Pour Loss", "content": "y"},
        {"id": "Product Feature: Alerts", "content": "z"},
    ]
    path = tmp_path / "near-miss.json"
    path.write_text(json.dumps(graph))
    tab.set_input_files("#graph-file", str(path))
    tab.click("#generate")
    error = tab.locator("#generate-error")
    error.wait_for(state="visible")
    text = error.inner_text()
    assert "did you mean 'Pour Loss'?" in text and "did you mean 'Customer job'?" in text
    for line in text.splitlines():
        assert text.count(line) == 1, f"shown twice: {line!r} in {text!r}"
    assert "listed in `problems`" not in text
    screens(tab, "graph-error")


def test_a_run_interrupted_by_a_restart_of_both_servers_can_be_resumed(
    tab: Any, tmp_path: Path
) -> None:
    """`serve` stopped mid-run and started again: the fresh dashboard remembers nothing,
    yet the page shows the run as interrupted with Resume and Cancel, and after Resume
    one counter (status, email, chart) runs on from where the chart stopped."""
    dash_port = free_port()
    env = webhooks_to(dash_port, SECRET)
    api = ApiServer(tmp_path, env).start()
    settings = WebSettings(api_url=api.url, webhook_secret=SECRET)
    try:
        with serve_in_thread(create_app(settings), dash_port) as url:
            open_page(tab, url)
            # Big groups, so the run is still going when the servers stop.
            body = {"iterations": 20, "depth": 8, "group_size": 128}
            r = httpx.post(f"{url}/api/generate", json=body, timeout=10)
            assert r.status_code == 202, r.text
            run_id = r.json()["run_id"]
            # The dreaming cartoon shows from the start until the first trained email.
            tab.locator("#dreaming").wait_for(state="visible")
            tab.wait_for_selector(f"#run-status:has-text('{run_id} · running')")
            tab.wait_for_selector("#run-status:has-text('1 of 20 iterations done')")
            api.kill(signal.SIGKILL)
            api.stop()  # the run's own process goes with it
        api.start()  # the same port, results and data: a restart
        with serve_in_thread(create_app(settings), dash_port) as url:
            open_page(tab, url)
            status = tab.locator("#run-status")
            tab.wait_for_selector(
                f"#run-status:has-text('{run_id} · interrupted')", timeout=RUN_TIMEOUT_MS
            )
            done = int(status.inner_text().split(" · ")[2].split()[0])
            assert done >= 1
            assert tab.locator("#resume-run").is_visible()
            assert tab.locator("#cancel-run").is_visible()
            assert "step" not in status.inner_text()
            # The past runs list names it, with its status.
            item = tab.locator(f"#run-list button[data-run-id='{run_id}']")
            assert "interrupted" in item.inner_text()
            screens(tab, "restarted-interrupted")

            tab.click("#resume-run")
            tab.wait_for_selector(f"#run-status:has-text('{run_id} · succeeded')", timeout=180_000)
            tab.wait_for_selector(f"#email-meta:has-text('run {run_id} · final')")
            assert "20 of 20 iterations done" in status.inner_text()
            tab.click("#reward-details summary")
            rows = tab.eval_on_selector_all(
                ".reward-table tbody th", "hs => hs.map(h => Number(h.textContent))"
            )
            assert rows == list(range(rows[0], 21)) and rows[0] <= 1, rows
            screens(tab, "resumed")
    finally:
        api.stop()


def test_every_prospect_of_a_run_has_its_email_and_the_ceiling_is_drawn(
    tab: Any, site: tuple[str, ApiServer]
) -> None:
    url, api = site
    open_page(tab, url)
    tab.fill("#iterations", "2")
    tab.fill("#depth", "5")
    run_id = click_generate(tab)  # the empty form: the backend's sample prospects
    tab.wait_for_selector(f"#email-meta:has-text('run {run_id} · final')", timeout=RUN_TIMEOUT_MS)
    prospects = api.client().get("/runs?limit=1").json()["runs"][0]["prospects"]
    assert len(prospects) >= 2
    tabs = tab.locator("#prospect-tabs button")
    tabs.nth(len(prospects) - 1).wait_for()
    assert tabs.count() == len(prospects)
    assert f"writes to {len(prospects)} prospects" in tab.locator("#prospect-note").inner_text()
    first = prospects[0]["name"]
    assert first.split()[0] in tab.locator("#email-body").inner_text()
    assert f"cited in {first}'s email" in tab.locator("#graph-for").inner_text()
    second = prospects[1]["name"]
    tabs.nth(1).click()
    tab.wait_for_selector(f'#prospect-note:has-text("showing {second}\'s email")')
    assert second.split()[0] in tab.locator("#email-body").inner_text()
    assert f"cited in {second}'s email" in tab.locator("#graph-for").inner_text()

    # The ceiling: a line on the chart and a column of the table.
    tab.wait_for_selector("#chart-view .legend:has-text('oracle')")
    oracle = api.client().get(f"/runs/{run_id}/oracle").json()  # computed once, kept
    assert oracle["max_emails"] == 2000 and oracle["oracle_reward"] is not None
    assert oracle["scenario_id"] == prospects[0]["scenario_id"]
    tab.click("#reward-details summary")
    tab.wait_for_selector(".reward-table th:has-text('oracle')")
    cell = tab.locator(".reward-table tbody tr:last-child td:last-child").inner_text()
    assert cell == f"{oracle['oracle_reward']:.3f}"
    screens(tab, "prospects-and-oracle")

    # Copy, Export and Rate under the email shown (the second prospect's).
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab.click("#copy-email")
    tab.wait_for_selector("#tool-status:has-text('Copied')")
    copied = tab.evaluate("navigator.clipboard.readText()")
    subject = tab.locator("#email-subject").inner_text()
    assert copied.startswith(f"Subject: {subject}")
    with tab.expect_download() as download:
        tab.click("#export-email")
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["subject"] == subject and exported["run_id"] == run_id
    assert exported["email_key"].startswith("sha256:")
    tab.click(".rate-thumb[data-value='1']")
    tab.fill("#rate-note", "Names the audit; good.")
    tab.click("#rate-send")
    tab.wait_for_selector("#rate-status:has-text('rating recorded')")
    rows = [json.loads(line) for line in feedback_file(api.results, None).read_text().splitlines()]
    assert rows[-1]["email_key"] == exported["email_key"] and rows[-1]["value"] == 1.0
    assert rows[-1]["note"] == "Names the audit; good." and rows[-1]["run_id"] == run_id
    screens(tab, "rated")


# Every edge sampled along its length: no point inside a node other than its own two
# (boxes shrunk by 2 px, so an arrow touching its target's border is fine).
_EDGES_THROUGH_NODES_JS = """() => {
  const boxes = [...document.querySelectorAll('svg.graph-svg g.node')].map((g) => {
    const r = g.querySelector('rect.box').getBoundingClientRect();
    return { id: g.dataset.nodeId, l: r.left + 2, r: r.right - 2, t: r.top + 2, b: r.bottom - 2 };
  });
  const svgEl = document.querySelector('svg.graph-svg');
  const m = svgEl.getScreenCTM();
  const hits = [];
  for (const p of document.querySelectorAll('svg.graph-svg path.edge')) {
    const [src, dst] = p.querySelector('title').textContent.split(/ —.*?→ /);
    const len = p.getTotalLength();
    for (let s = 0; s <= len; s += 3) {
      const q = p.getPointAtLength(s).matrixTransform(m);
      const inside = boxes.find((b) => b.id !== src && b.id !== dst
        && q.x > b.l && q.x < b.r && q.y > b.t && q.y < b.b);
      if (inside) { hits.push(`${src} -> ${dst} crosses ${inside.id}`); break; }
    }
  }
  return hits;
}"""


def test_the_graph_reads_on_a_phone_from_the_moment_a_run_starts(
    tab: Any, site: tuple[str, ApiServer]
) -> None:
    url, _ = site
    open_page(tab, url)
    graph = json.loads((REPO / "examples" / "graph-16-nodes.json").read_text())
    nodes = graph if isinstance(graph, list) else graph.get("graph") or graph["nodes"]
    # Big groups: the run is still dreaming when the page is looked at.
    body = {"iterations": 2, "depth": 8, "group_size": 128, "graph": nodes}
    r = httpx.post(f"{url}/api/generate", json=body, timeout=10)
    assert r.status_code == 202, r.text
    run_id = r.json()["run_id"]
    tab.wait_for_selector(f"#run-status:has-text('{run_id}')")
    tab.locator("#dreaming").wait_for(state="visible")
    tab.wait_for_selector("svg.graph-svg g.node >> nth=15")  # drawn before any email
    assert tab.locator("#dreaming").is_visible()
    screens(tab, "dreaming-with-graph", expect_nodes=16)

    for width, height in ((390, 844), (1280, 900)):
        resize(tab, width, height)
        labels = tab.eval_on_selector_all(
            "svg.graph-svg g.node",
            "gs => gs.map(g => [...g.querySelectorAll('text.node-label')]"
            ".map(t => t.textContent).join(' '))",
        )
        cut = [label for label in labels if "…" in label]
        assert not cut, f"labels cut at {width}px: {cut}"
        if width == 390:
            hits = tab.evaluate(_EDGES_THROUGH_NODES_JS)
            assert not hits, f"edges behind nodes at 390px: {hits}"
    # A tap shows the node's full name and its text.
    resize(tab, 390, 844)
    target = next(n for n in nodes if n.get("content"))
    tab.locator(f"svg.graph-svg g.node[data-node-id='{target['id']}']").click()
    detail = tab.locator("#node-detail")
    detail.wait_for(state="visible")
    assert target["id"] in detail.inner_text() and target["content"][:40] in detail.inner_text()
    screens(tab, "node-tapped", expect_nodes=16)


def test_no_backend_is_said_plainly_on_the_page(tab: Any) -> None:
    api_url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with serve_in_thread(create_app(WebSettings(api_url=api_url))) as url:
        tab.goto(url + "/")
        tab.wait_for_selector("#backend-pill:has-text('unreachable')")
        tab.click("#generate")
        error = tab.locator("#generate-error")
        error.wait_for(state="visible")
        text = error.inner_text()
        assert text.startswith(f"The backend at {api_url} cannot be reached"), text
        assert "uv run codreamer api" in text and "ConnectError" not in text
        assert len(text.splitlines()) == 1
        screens(tab, "no-backend", expect_nodes=7)
