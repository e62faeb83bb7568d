"""End to end: the real backend API and the dashboard on loopback, a real Chromium.

Click "Generate email", see the sleeping animation, then the webhooks (signed
with the shared secret) bring the final email and the coloured graph without a
reload. Then stop the backend: the next page load shows labelled mock data.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import api_server  # tests/e2e/api_support.py: `codreamer api` in a subprocess

from web.app import create_app
from web.config import WebSettings
from web.testing import free_port, serve_in_thread

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SECRET = "e2e-real-shared-secret"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def test_generate_email_against_real_api(browser: Any, tmp_path: Path) -> None:
    dash_port = free_port()
    env = {
        "FRONTEND_URL": f"http://127.0.0.1:{dash_port}/api/final-email",
        "CODREAMER_WEBHOOK_SECRET": SECRET,
    }
    ARTIFACTS.mkdir(exist_ok=True)
    with api_server(tmp_path, env) as api:
        settings = WebSettings(api_url=api.url, webhook_secret=SECRET)
        with serve_in_thread(create_app(settings), dash_port) as dash_url:
            context = browser.new_context(viewport={"width": 1440, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(60_000)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(dash_url + "/")
            page.evaluate("window.__noReload = 1")
            page.wait_for_selector("#backend-pill:has-text('connected')")
            assert page.locator("#mock-banner").is_hidden()
            page.wait_for_function("document.querySelectorAll('#scenario option').length > 1")
            page.fill("#iterations", "2")
            page.fill("#depth", "5")
            page.click("#generate")

            # The cloud sleeps until the first webhook of this run arrives.
            page.locator("#dreaming").wait_for(state="visible")
            page.screenshot(path=str(ARTIFACTS / "e2e-real-api-dreaming.png"), full_page=True)
            run_id = page.evaluate("fetch('/api/state').then(r => r.json())")["active_run_id"]
            assert run_id

            page.wait_for_function(
                "s => document.querySelector('#email-meta').textContent.includes(s)",
                arg=f"run {run_id} · final",
            )
            page.locator("#dreaming").wait_for(state="hidden")
            assert page.locator("#email-subject").inner_text().strip()
            assert page.locator("#email-citations a").count() >= 2
            page.wait_for_selector("svg.graph-svg g.node")  # edges from GET /runs/{id}/graph
            assert page.locator("svg.graph-svg path.edge").count() > 0
            page.wait_for_selector(f"#run-status:has-text('{run_id} · succeeded')")
            assert page.locator("#chart-view svg .series").count() >= 1
            assert page.evaluate("window.__noReload") == 1
            assert not errors, errors
            page.screenshot(path=str(ARTIFACTS / "e2e-real-api-final.png"), full_page=True)
            context.close()

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
