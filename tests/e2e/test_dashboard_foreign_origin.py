"""A page on another origin, in a real Chromium, can neither start a run nor post a webhook.

The real API and the dashboard run on loopback; a third server plays the foreign
site and tries everything a page can send without asking: `no-cors` fetches with
a text/plain body (cookies included), a CORS fetch declaring JSON, a beacon, and
form posts. It does so from a cross-site origin (localhost vs 127.0.0.1) and from a
same-site one (another port), against an open dashboard and against a signed-in
protected one. Nothing may reach the backend or the page's state; the same
request from the dashboard's own page goes through, so the check can fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from tests.support.api import ApiServer
from tests.support.browser import launch_browser
from tests.support.dashboard import webhooks_to
from tests.support.server import free_port, serve_in_thread
from web.app import create_app
from web.config import WebSettings

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

KEY = "backend-key"
PASSWORD = "dashboard-password"
WEBHOOK = {
    "run_id": "api-20260101-000000-abcdef",
    "stage": "final",
    "final_email": {"subject": "Forged result", "body": "from a foreign page", "citations": []},
    "node_scores": {"Customer Job": 0.1},
}

ATTACK_JS = """
const DASH = %(dash)s;
const RUN = JSON.stringify({iterations: 1, depth: 1});
const HOOK = %(hook)s;
const tries = [];
async function attempt(name, fn) {
  try { await fn(); tries.push(name + ': sent'); } catch (e) { tries.push(name + ': ' + e); }
}
(async () => {
  for (const [path, body] of [['/api/generate', RUN], ['/api/final-email', HOOK],
                              ['/api/login', JSON.stringify({password: 'guess'})]]) {
    await attempt('no-cors ' + path, () => fetch(DASH + path, {method: 'POST', mode: 'no-cors',
      credentials: 'include', headers: {'Content-Type': 'text/plain'}, body}));
    await attempt('cors json ' + path, () => fetch(DASH + path, {method: 'POST',
      credentials: 'include', headers: {'Content-Type': 'application/json'}, body}));
    await attempt('beacon ' + path, () => navigator.sendBeacon(DASH + path,
      new Blob([body], {type: 'text/plain'})));
  }
  for (const path of ['/api/generate', '/api/final-email']) {
    const frame = document.createElement('iframe');
    frame.name = 'f' + path.length;
    document.body.append(frame);
    const form = document.createElement('form');
    form.method = 'POST'; form.enctype = 'text/plain'; form.action = DASH + path;
    form.target = frame.name;
    const input = document.createElement('input');
    input.name = '{"iterations":1,"depth":1,"x":"'; input.value = '"}';
    form.append(input);
    document.body.append(form);
    form.submit();
  }
  await new Promise((r) => setTimeout(r, 1500));
  document.title = 'done: ' + tries.join(' | ');
})();
"""


OWN_POST = """([path, body]) => fetch(path, {method: 'POST',
    headers: {'Content-Type': 'application/json'}, body}).then(r => r.status)"""


def foreign_site(dash_url: str) -> FastAPI:
    app = FastAPI()
    script = ATTACK_JS % {"dash": json.dumps(dash_url), "hook": json.dumps(json.dumps(WEBHOOK))}

    @app.get("/")
    def page() -> HTMLResponse:
        return HTMLResponse(f"<!doctype html><title>win a prize</title><script>{script}</script>")

    return app


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@pytest.mark.parametrize("protected", [False, True], ids=["open-dashboard", "signed-in"])
def test_foreign_page_cannot_write(browser: Any, tmp_path: Path, protected: bool) -> None:
    dash_port = free_port()
    env = webhooks_to(dash_port)
    if protected:
        env["CODREAMER_API_KEY"] = KEY
    api = ApiServer(tmp_path, env).start()
    auth = {"Authorization": f"Bearer {KEY}"}
    try:
        settings = WebSettings(
            api_url=api.url,
            api_key=KEY if protected else None,
            password=PASSWORD if protected else None,
        )
        with serve_in_thread(create_app(settings), dash_port) as dash_url:
            context = browser.new_context()
            page = context.new_page()
            page.set_default_timeout(30_000)
            page.goto(dash_url + "/")
            if protected:  # the victim is signed in: their cookie is in this browser
                page.fill("#password", PASSWORD)
                page.click("#signin")
            page.wait_for_selector("#backend-pill:has-text('connected')")

            foreign_port = free_port()
            with serve_in_thread(foreign_site(dash_url), foreign_port):
                for origin in (
                    f"http://localhost:{foreign_port}",
                    f"http://127.0.0.1:{foreign_port}",
                ):
                    evil = context.new_page()
                    evil.goto(origin + "/")
                    evil.wait_for_function("document.title.startsWith('done')", timeout=30_000)
                    evil.close()

            runs = httpx.get(f"{api.url}/runs", headers=auth, timeout=10).json()
            assert runs["count"] == 0, runs
            state = page.evaluate("fetch('/api/state').then(r => r.json())")
            assert state["latest"] is None and state["active_run_id"] is None, state

            # Control: the same writes from the dashboard's own page go through; behind
            # a password only a signed webhook is taken, even from its own page.
            status = page.evaluate(OWN_POST, ["/api/final-email", json.dumps(WEBHOOK)])
            if protected:
                assert status == 401
            else:
                assert status == 200
                page.wait_for_selector("#email-subject:has-text('Forged result')")
            started = page.evaluate(OWN_POST, ["/api/generate", '{"iterations": 1, "depth": 1}'])
            assert started == 202
            assert httpx.get(f"{api.url}/runs", headers=auth, timeout=10).json()["count"] == 1
            context.close()
    finally:
        api.stop()
