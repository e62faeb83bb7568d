"""A backend with a bearer key, the real API on loopback.

The dashboard is never an open proxy: it attaches the backend's key only to runs
started by someone signed in with the dashboard's own password.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.support.api import ApiServer
from tests.support.server import serve_in_thread
from web.app import create_app
from web.config import WebSettings

KEY = "sekret-key"
PASSWORD = "dashboard-password"
BODY = {"iterations": 1, "depth": 3}


def _runs(api: ApiServer) -> int:
    r = httpx.get(f"{api.url}/runs", headers={"Authorization": f"Bearer {KEY}"}, timeout=10)
    assert r.status_code == 200, r.text
    return int(r.json()["count"])


def test_generate_needs_the_dashboards_own_credential(tmp_path: Path) -> None:
    api = ApiServer(tmp_path, {"CODREAMER_API_KEY": KEY}).start()
    try:
        protected = WebSettings(
            CODREAMER_API_URL=api.url, CODREAMER_API_KEY=KEY, CODREAMER_WEB_PASSWORD=PASSWORD
        )
        no_password = WebSettings(CODREAMER_API_URL=api.url, CODREAMER_API_KEY=KEY)
        without_key = WebSettings(CODREAMER_API_URL=api.url, CODREAMER_WEB_PASSWORD=PASSWORD)
        with (
            serve_in_thread(create_app(protected)) as good,
            serve_in_thread(create_app(no_password)) as locked,
            serve_in_thread(create_app(without_key)) as keyless,
        ):
            # The reproduction from the issue: anyone, any content type.
            for url in (good, locked):
                r = httpx.post(
                    f"{url}/api/generate",
                    content='{"iterations":1,"depth":1}',
                    headers={"Content-Type": "text/plain"},
                    timeout=10,
                )
                assert r.status_code in (401, 415), r.text
                assert httpx.post(f"{url}/api/generate", json=BODY, timeout=10).status_code == 401
                assert httpx.get(f"{url}/api/state", timeout=10).status_code == 401
            assert _runs(api) == 0

            with httpx.Client(base_url=good, timeout=10) as browser:
                assert browser.post("/api/login", json={"password": PASSWORD}).status_code == 200
                ok = browser.post("/api/generate", json=BODY)
                assert ok.status_code == 202, ok.text
                run_id = ok.json()["run_id"]
                assert run_id.startswith("api-")
                status = browser.get(f"/api/run/{run_id}")
                assert status.status_code == 200 and status.json()["run_id"] == run_id
            assert _runs(api) == 1

            # Signed in, but the dashboard lacks the backend's key: the backend's 401.
            with httpx.Client(base_url=keyless, timeout=10) as browser:
                assert browser.post("/api/login", json={"password": PASSWORD}).status_code == 200
                assert browser.post("/api/generate", json=BODY).status_code == 401
            assert _runs(api) == 1
    finally:
        api.stop()
