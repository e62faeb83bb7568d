"""End to end: the real backend API and the dashboard on loopback, a real Chromium.

Click "Generate email", see the sleeping animation, then the webhooks (signed
with the shared secret) bring the final email and the coloured graph without a
reload. Then stop the backend: the next page load shows labelled mock data.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import launch_browser, open_tab
from tests.support.dashboard import dashboard_with_api
from tests.support.paths import ARTIFACTS, KG
from tests.support.server import serve_in_thread
from web.app import create_app
from web.config import WebSettings

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


SECRET = "e2e-real-shared-secret"
WIDE = (1440, 1000)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


def test_generate_email_against_real_api(browser: Any, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    with dashboard_with_api(tmp_path, SECRET) as (dash_url, api):
        with open_tab(browser, WIDE) as page:
            check_generate_flow(page, dash_url)

        # With the backend gone, a fresh dashboard shows labelled mock data.
        api.stop()
        with serve_in_thread(create_app(WebSettings(api_url=api.url))) as dash_url:
            context = browser.new_context(viewport={"width": 1440, "height": 1000})
            page = context.new_page()
            page.goto(dash_url + "/")
            page.locator("#mock-banner").wait_for(state="visible")
            assert "mock data" in page.locator("#mock-banner").inner_text()
            page.screenshot(path=str(ARTIFACTS / "e2e-backend-stopped-mock.png"), full_page=True)
            context.close()


def check_generate_flow(page: Any, dash_url: str) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # A fast run could wake the cloud between two polls of wait_for: record every
    # time #dreaming is shown, from before the page's own script runs.
    page.add_init_script("""
      window.__sawDreaming = false;
      document.addEventListener('DOMContentLoaded', () => {
        const d = document.getElementById('dreaming');
        new MutationObserver(() => { if (!d.hidden) window.__sawDreaming = true; })
          .observe(d, { attributes: true, attributeFilter: ['hidden'] });
      });
    """)
    page.goto(dash_url + "/")
    page.evaluate("window.__noReload = 1")
    page.wait_for_selector("#backend-pill:has-text('connected')")
    assert page.locator("#mock-banner").is_hidden()
    # (No wait_for_function: its string predicates need eval, which our CSP forbids.)
    page.wait_for_selector("#preset option:nth-child(2)", state="attached")
    page.fill("#iterations", "2")
    page.fill("#depth", "5")
    page.click("#generate")

    # The cloud sleeps until the first webhook of this run arrives.
    page.wait_for_selector("#run-status:has-text('Run ')")
    if page.locator("#dreaming").is_visible():
        page.screenshot(path=str(ARTIFACTS / "e2e-real-api-dreaming.png"), full_page=True)
    run_id = page.evaluate("fetch('/api/state').then(r => r.json())")["active_run_id"]
    assert run_id

    page.wait_for_selector(f"#email-meta:has-text('run {run_id} · final')")
    page.locator("#dreaming").wait_for(state="hidden")
    assert page.evaluate("window.__sawDreaming") is True
    assert page.locator("#email-subject").inner_text().strip()
    assert page.locator("#email-citations a").count() >= 2
    page.wait_for_selector("svg.graph-svg g.node")  # edges from GET /runs/{id}/graph
    assert page.locator("svg.graph-svg path.edge").count() > 0
    page.wait_for_selector(f"#run-status:has-text('{run_id} · succeeded')")
    assert page.locator("#chart-view svg .series").count() >= 1
    assert page.evaluate("window.__noReload") == 1
    assert not errors, errors
    page.screenshot(path=str(ARTIFACTS / "e2e-real-api-final.png"), full_page=True)


def test_sixteen_node_graph_from_a_chosen_file_is_legible(browser: Any, tmp_path: Path) -> None:
    """Pick the shared 16-node graph in the page; every node's score must be readable."""
    graph_file = KG / "synthetic-data-16.json"
    if not graph_file.exists():
        pytest.skip(f"{graph_file} not found (shared/ is laid beside the repository)")
    ARTIFACTS.mkdir(exist_ok=True)
    with dashboard_with_api(tmp_path, SECRET) as (dash_url, _api), open_tab(browser, WIDE) as page:
        page.goto(dash_url + "/")
        page.wait_for_selector("#backend-pill:has-text('connected')")
        page.set_input_files("#graph-file", str(graph_file))
        page.fill("#iterations", "1")
        page.fill("#depth", "6")
        page.click("#generate")
        page.wait_for_selector("#run-status:has-text('Run ')")
        run_id = page.evaluate("fetch('/api/state').then(r => r.json())")["active_run_id"]
        page.wait_for_selector(f"#email-meta:has-text('run {run_id} · final')")
        page.wait_for_selector("svg.graph-svg g.node >> nth=15")
        scores = page.evaluate("fetch('/api/state').then(r => r.json())")["latest"]["node_scores"]
        # One snapshot of every node: id, score text and box, read atomically.
        drawn = page.evaluate("""() => [...document.querySelectorAll(
            'svg.graph-svg g.node')].map(g => {
              const r = g.querySelector('rect.box').getBoundingClientRect();
              return {id: g.dataset.nodeId, score: g.querySelector('.node-score')
                .textContent, x: r.x, y: r.y, width: r.width, height: r.height};
            })""")
        assert len(drawn) == 16
        for d in drawn:
            assert d["score"] == f"{min(1.0, max(0.0, scores[d['id']])):.2f}", d
        for i, a in enumerate(drawn):  # no two boxes overlap: all labels readable
            for b in drawn[i + 1 :]:
                assert (
                    a["x"] + a["width"] <= b["x"]
                    or b["x"] + b["width"] <= a["x"]
                    or a["y"] + a["height"] <= b["y"]
                    or b["y"] + b["height"] <= a["y"]
                ), (a, b)
        assert page.locator("#email-body p").count() >= 2
        page.screenshot(path=str(ARTIFACTS / "e2e-graph-16-nodes.png"), full_page=True)
