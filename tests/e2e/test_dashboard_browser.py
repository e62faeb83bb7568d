"""The dashboard page in a real headless Chromium (Debian's), driven by Playwright.

Servers are real uvicorn instances on loopback. No backend here: webhooks are
posted straight to the dashboard, signed, as the backend would (the flows that
need the backend are in test_dashboard_e2e.py, against the real API).
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest

from tests.support.browser import launch_browser
from tests.support.paths import ARTIFACTS
from tests.support.server import serve_in_thread
from web.app import create_app
from web.config import WebSettings
from web.signature import sign_headers

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


SECRET = "e2e-shared-secret"
CLOSED_PORT_URL = "http://127.0.0.1:9"
TIMEOUT_MS = 10_000


# ---- fixtures --------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


class Page:
    """A browser tab on a fresh dashboard, with the page's errors collected."""

    def __init__(self, browser: Any, url: str) -> None:
        self.url = url
        self.context = browser.new_context(viewport={"width": 1440, "height": 1000})
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.console_errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", lambda e: self.console_errors.append(str(e)))

        def on_dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", on_dialog)
        self.http = httpx.Client(base_url=url, timeout=10)

    def open(self) -> Any:
        self.page.goto(self.url + "/")
        # A marker that only survives if the page is never reloaded.
        self.page.evaluate("window.__noReload = 'still here'")
        return self.page

    def webhook(self, payload: dict[str, Any]) -> httpx.Response:
        body = json.dumps(payload).encode()
        headers = sign_headers(SECRET, f"msg_{uuid.uuid4().hex}", body) | {
            "Content-Type": "application/json",
            "X-CoDreamer-Stage": payload.get("stage", "final"),
        }
        r = self.http.post("/api/final-email", content=body, headers=headers)
        assert r.status_code == 200, r.text
        return r

    def screenshot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    def assert_no_reload(self) -> None:
        assert self.page.evaluate("window.__noReload") == "still here"

    def csp_violations(self) -> list[str]:
        return [e for e in self.console_errors if "Content Security Policy" in e]

    def close(self) -> None:
        self.http.close()
        self.context.close()


@pytest.fixture
def open_dashboard(browser: Any) -> Iterator[Callable[..., Page]]:
    with ExitStack() as stack:

        def start(api_url: str = CLOSED_PORT_URL) -> Page:
            settings = WebSettings(api_url=api_url, webhook_secret=SECRET)
            url = stack.enter_context(serve_in_thread(create_app(settings)))
            page = Page(browser, url)
            stack.callback(page.close)
            return page

        yield start


def payload(run_id: str, stage: str, iteration: int | None, **over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "run_id": run_id,
        "stage": stage,
        "iteration": iteration,
        "iterations": 2,
        "final_email": {
            "subject": f"Alex, a thought for Acme ({stage} {iteration})",
            "body": "Hi Alex,\n\nYour team validates synthetic data by hand.\n\n"
            "Would a 20-minute call next week make sense?",
            "citations": ["Customer Job", "Process for Quality Validation", "Product Feature"],
        },
        "node_scores": {
            "Customer Job": 0.72,
            "Process for Quality Validation": 0.35,
            "Human-in-the-Loop Workflow": 0.1,
            "Product Feature": 0.95,
        },
        "metrics": {"mean": 0.4 + 0.1 * (iteration or 0), "max": 0.6 + 0.1 * (iteration or 0)},
    }
    data |= over
    return data


# ---- tests -----------------------------------------------------------------------


def test_webhooks_appear_live_with_coloured_nodes(open_dashboard: Callable[..., Page]) -> None:
    ui = open_dashboard()
    page = ui.open()
    page.wait_for_selector("#live-pill:has-text('streaming')")

    ui.webhook(payload("api-live", "baseline", 0))
    page.wait_for_selector("#email-subject:has-text('(baseline 0)')")
    ui.webhook(payload("api-live", "iteration", 1))
    ui.webhook(payload("api-live", "final", 2))
    page.wait_for_selector("#email-subject:has-text('(final 2)')")
    ui.webhook(
        payload(
            "api-live",
            "iteration",
            1,
            final_email={"subject": "late retry", "body": "old", "citations": []},
        )
    )  # must not replace

    assert page.locator("#email-body p").count() == 3
    assert page.locator("#email-citations a").count() == 3
    items = page.locator(".node-item")
    assert items.count() == 4
    # Sorted by score, each with its number and a swatch whose colour deepens with it.
    assert items.nth(0).locator(".node-name").inner_text() == "Product Feature"
    assert items.nth(0).locator(".node-score").inner_text() == "0.95"
    top = items.nth(0).locator(".swatch").evaluate("e => getComputedStyle(e).backgroundColor")
    low = items.nth(3).locator(".swatch").evaluate("e => getComputedStyle(e).backgroundColor")
    assert top != low
    assert page.locator("#chart-view svg .series").count() >= 1
    assert page.locator("#mock-banner").is_hidden()
    page.wait_for_timeout(300)
    assert "late retry" not in page.locator("#email-subject").inner_text()
    ui.assert_no_reload()
    assert not ui.csp_violations(), ui.csp_violations()
    ui.screenshot("dashboard-live-email")


def test_xss_payload_is_shown_as_text(open_dashboard: Callable[..., Page]) -> None:
    ui = open_dashboard()
    page = ui.open()
    page.wait_for_selector("#live-pill:has-text('streaming')")
    evil_script = "<script>window.__xss = 'script ran'</script>"
    evil_img = "<img src=x onerror=\"window.__xss='img ran';alert('xss')\">"
    evil = f"{evil_script} {evil_img}"
    ui.webhook(
        payload(
            "api-xss",
            "final",
            2,
            final_email={"subject": evil, "body": f"Hello\n\n{evil}", "citations": [evil_img]},
            node_scores={evil_img: 0.9, "Customer Job": 0.2},
        )
    )
    page.wait_for_selector("#email-subject:has-text('window.__xss')")
    page.wait_for_timeout(500)  # give any injected handler the chance to fire
    assert page.evaluate("window.__xss") is None
    assert ui.dialogs == []
    assert page.locator("#email-subject").inner_text().startswith(evil_script)
    assert evil_img in page.locator("#email-body").inner_text()
    assert page.locator("#email-citations a").inner_text() == evil_img
    assert page.locator("main img, main script").count() == 0
    assert page.locator(".node-name", has_text="onerror").count() == 1
    # A reload renders the same state server-side through Jinja: still only text.
    page.reload()
    page.wait_for_selector("#email-subject:has-text('window.__xss')")
    page.wait_for_timeout(300)
    assert page.evaluate("window.__xss") is None and ui.dialogs == []
    ui.screenshot("dashboard-xss-as-text")


def test_unreachable_backend_shows_labelled_mock_data(open_dashboard: Callable[..., Page]) -> None:
    ui = open_dashboard(api_url=CLOSED_PORT_URL)
    page = ui.open()
    banner = page.locator("#mock-banner")
    banner.wait_for(state="visible")
    assert "mock data" in banner.inner_text()
    assert page.locator("#email-subject .mock-tag").inner_text() == "mock data"
    assert page.locator("#backend-pill").inner_text() == "backend: unreachable"
    assert page.locator("svg.graph-svg g.node").count() == 7
    assert page.locator("#chart-view svg .series").count() >= 1
    ui.screenshot("dashboard-mock-data")
    # A real result replaces the mock, and the label goes with it.
    ui.webhook(payload("api-real", "final", 2))
    page.wait_for_selector("#email-subject:has-text('(final 2)')")
    assert banner.is_hidden()
    assert not ui.csp_violations(), ui.csp_violations()
