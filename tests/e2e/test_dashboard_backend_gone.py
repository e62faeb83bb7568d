"""The backend dies mid-run: every part of the page says so at once, and it comes back.

Real API (killed at an exact event through the event gate), real dashboard, real
Chromium. Before, the run's line said "backend unreachable" while the pill beside
it said "backend: connected" until the next health check, seconds later.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.api import ApiServer
from tests.support.browser import launch_browser
from tests.support.event_gate import EventGate
from tests.support.server import free_port, serve_in_thread
from web.app import create_app
from web.config import WebSettings

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SECRET = "gone-shared-secret"

# Both read in one go: they are drawn by the same render, so they must agree.
READ_JS = """() => ({ status: document.querySelector('#run-status').textContent,
                      pill: document.querySelector('#backend-pill').textContent })"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


def test_pill_and_run_line_agree_when_the_backend_dies(browser: Any, tmp_path: Path) -> None:
    dash_port = free_port()
    gate = EventGate()
    env = {
        "FRONTEND_URL": f"http://127.0.0.1:{dash_port}/api/final-email",
        "CODREAMER_WEBHOOK_SECRET": SECRET,
        **gate.env,
    }
    api = ApiServer(tmp_path, env).start()
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_default_timeout(60_000)
    try:
        settings = WebSettings(api_url=api.url, webhook_secret=SECRET)
        with serve_in_thread(create_app(settings), dash_port) as url:
            page.goto(url + "/")
            page.wait_for_selector("#backend-pill:has-text('connected')")
            gate.hold(lambda _run, e: e["type"] == "iteration_finished" and e.get("iteration") == 1)
            r = httpx.post(f"{url}/api/generate", json={"iterations": 20}, timeout=10)
            assert r.status_code == 202, r.text
            run_id = r.json()["run_id"]
            assert gate.next_held(timeout=60).run_id == run_id
            page.wait_for_selector(f"#run-status:has-text('{run_id} · running')")
            gate.hold(None)
            api.kill(signal.SIGKILL)
            api.stop()

            page.wait_for_selector("#run-status:has-text('backend unreachable')")
            seen = page.evaluate(READ_JS)
            assert seen["pill"] == "backend: unreachable", seen

            api.start()  # the same port, results and data: a restart
            page.wait_for_selector(f"#run-status:has-text('{run_id} · interrupted')")
            seen = page.evaluate(READ_JS)
            assert seen["pill"] == "backend: connected", seen
            assert page.locator("#resume-run").is_visible()
            page.click("#cancel-run")
            page.wait_for_selector(f"#run-status:has-text('{run_id} · cancelled')")
    finally:
        page.close()
        api.stop()
        gate.close()
