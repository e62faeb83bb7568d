"""One iteration counter: the run's line never counts fewer iterations than its email.

An iteration's webhook reaches the page live, up to a status poll before the
backend's GET /runs/{id} says that iteration is done; a real run passes that moment
in well under a second, so the scripted backend holds it (its status lags, as a real
one's can) while real webhooks are posted to the real dashboard in real Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import launch_browser
from tests.support.dashboard import SIZES, ScriptedBackend, payload, post_webhook
from tests.support.server import serve_in_thread
from web.app import create_app
from web.config import WebSettings

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SECRET = "counter-shared-secret"
SCORES = {"Customer Job": 0.52, "Product Feature": 0.55}

READ_JS = """() => ({ status: document.querySelector('#run-status').textContent,
                      meta: document.querySelector('#email-meta').textContent })"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_status_counts_the_iteration_the_email_shows(browser: Any, size: tuple[int, int]) -> None:
    backend = ScriptedBackend()
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.set_default_timeout(120_000)  # a loaded CI machine; each wait still ends on its event
    try:
        with serve_in_thread(backend.app) as api_url:
            settings = WebSettings(api_url=api_url, webhook_secret=SECRET)
            with serve_in_thread(create_app(settings)) as url:
                page.goto(url + "/")
                page.wait_for_selector("#backend-pill:has-text('connected')")
                # The form takes its bounds once the backend answers; filling it before
                # then races that (under load the click could come first).
                page.wait_for_selector("#form-source:has-text('limits')")
                page.fill("#p-name", "Morgan Lee")
                page.fill("#p-goal", "Secure a 20-minute discovery call")
                page.click("#generate")
                run_id = backend.next_id
                # The backend answers the POST with "queued": set "running" only after the
                # page follows the run, or a slow POST would overwrite it.
                page.wait_for_selector(f"#run-status:has-text('{run_id}')")
                progress = {"iteration": 0, "iterations": 50, "step": "score", "fraction": 0.0}
                backend.set(run_id, status="running", progress=progress)
                page.wait_for_selector(f"#run-status:has-text('{run_id} · running')")
                assert "0 of 50 iterations done" in page.locator("#run-status").inner_text()

                # Iteration 1's email arrives; the backend's status still says 0 done.
                for k, stage in ((0, "baseline"), (1, "iteration")):
                    body = payload(run_id, stage, k, 50, SCORES, ["Customer Job"], f"Email {k}")
                    post_webhook(url, SECRET, body)
                page.wait_for_selector("#email-meta:has-text('iteration 1 of 50')")
                seen = page.evaluate(READ_JS)
                assert "1 of 50 iterations done" in seen["status"], seen
                assert "now the judge is scoring" in seen["status"], seen
    finally:
        page.close()
