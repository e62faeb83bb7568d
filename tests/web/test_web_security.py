"""No cross-site writes, no open proxy, run ids checked before forwarding (DESIGN §8).

Real uvicorn servers on loopback; a stand-in backend records every request it got,
so a test can show a refused request never reached it.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.server import serve_in_thread
from tests.web.standin_backend import RUN, fake_backend
from web.config import WebSettings
from web.session import COOKIE, make_cookie

Start = Callable[..., Any]
Make = Callable[..., dict[str, Any]]
FOREIGN = "http://evil.example:8080"
PASSWORD = "correct horse battery staple"


def raw_get(base_url: str, raw_path: str, cookie: str | None = None) -> tuple[int, bytes]:
    """One HTTP/1.1 GET with the path exactly as given: clients normalise `/.`, this does not."""
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as s:
        extra = f"Cookie: {COOKIE}={cookie}\r\n" if cookie else ""
        request = f"GET {raw_path} HTTP/1.1\r\nHost: {parts.netloc}\r\n{extra}"
        s.sendall((request + "Connection: close\r\n\r\n").encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


# ---- origin and content type -------------------------------------------------------


def test_foreign_origin_cannot_post_a_webhook(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard()
    r = dash.post(make_payload(), headers={"Origin": FOREIGN})
    assert r.status_code == 403 and "Origin" in r.json()["detail"]
    r = dash.post(make_payload(), headers={"Origin": "null"})
    assert r.status_code == 403
    # A browser that strips Origin still says where the request comes from.
    r = dash.post(make_payload(), headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    assert dash.state()["latest"] is None
    # The dashboard's own page, and non-browser senders (no Origin), are welcome.
    assert dash.post(make_payload(), headers={"Origin": dash.url}).status_code == 200
    assert dash.post(make_payload(iteration=2)).status_code == 200
    assert dash.state()["latest"]["iteration"] == 2


def test_non_json_bodies_are_refused(start_dashboard: Start, make_payload: Make) -> None:
    import json

    dash = start_dashboard()
    body = json.dumps(make_payload())
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None):
        headers = {"Content-Type": ctype} if ctype else {}
        r = dash.http.post("/api/final-email", content=body, headers=headers)
        assert r.status_code == 415, (ctype, r.text)
        assert "application/json" in r.json()["detail"]
        r = dash.http.post("/api/generate", content='{"iterations":1,"depth":1}', headers=headers)
        assert r.status_code == 415, (ctype, r.text)
    assert dash.state()["latest"] is None
    ok = dash.http.post(
        "/api/final-email",
        content=body,
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert ok.status_code == 200


def test_every_write_checks_origin_and_type(start_dashboard: Start) -> None:
    received: list[dict[str, Any]] = []
    paths: list[str] = []
    with serve_in_thread(fake_backend(received, paths)) as backend:
        dash = start_dashboard(api_url=backend)
        writes = ["/api/generate", f"/api/run/{RUN}/resume", f"/api/run/{RUN}/cancel"]
        for path in writes:
            r = dash.http.post(path, json={}, headers={"Origin": FOREIGN})
            assert r.status_code == 403, (path, r.text)
            r = dash.http.post(path, content="{}", headers={"Content-Type": "text/plain"})
            assert r.status_code == 415, (path, r.text)
        assert not [p for p in paths if p.startswith("POST")]
        # From the page itself they go through.
        own = {"Origin": dash.url}
        assert dash.http.post(f"/api/run/{RUN}/cancel", json={}, headers=own).status_code == 202
        assert dash.http.post(f"/api/run/{RUN}/resume", json={}, headers=own).status_code == 202
        assert received[-2:] == [
            {"action": "cancel", "run_id": RUN},
            {"action": "resume", "run_id": RUN},
        ]
        assert dash.state()["active_run_id"] == RUN  # resuming follows the run


def test_allowed_origins_setting(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard(allowed_origins="https://ops.example, http://other.example:9000")
    assert dash.post(make_payload(), headers={"Origin": "https://ops.example"}).status_code == 200
    assert (
        dash.post(make_payload(), headers={"Origin": "https://ops.example.evil"}).status_code == 403
    )


# ---- run ids -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "/api/run/.",
        "/api/run/..",
        "/api/run/%2e",
        "/api/run/%2E%2E",
        "/api/run/api-1%0A",
        "/api/run/api-%EF%BC%91",  # a full-width digit
        "/api/run/api-1%2Fgraph",
        "/api/run/" + "a" * 129,
        "/api/graph/.",
        "/api/graph/%2e%2e",
    ],
)
def test_bad_run_ids_are_never_forwarded(start_dashboard: Start, raw: str) -> None:
    received: list[dict[str, Any]] = []
    paths: list[str] = []
    with serve_in_thread(fake_backend(received, paths)) as backend:
        dash = start_dashboard(api_url=backend)
        status, body = raw_get(dash.url, raw)
        assert status in (404, 422), (raw, status, body)
        assert not [p for p in paths if "/runs" in p], paths
        # A good id is forwarded, quoted, to exactly /runs/{id}.
        status, _ = raw_get(dash.url, f"/api/run/{RUN}")
        assert status == 200 and paths[-1] == f"GET /runs/{RUN}"


# ---- the dashboard's own credential -------------------------------------------------


def test_backend_key_without_dashboard_password_locks_everything(
    start_dashboard: Start, make_payload: Make
) -> None:
    received: list[dict[str, Any]] = []
    paths: list[str] = []
    with serve_in_thread(fake_backend(received, paths)) as backend:
        dash = start_dashboard(api_url=backend, api_key="backend-key")
        for path in (
            "/api/state",
            f"/api/run/{RUN}",
            f"/api/graph/{RUN}",
            "/api/scenarios",
            "/api/backend",
            "/api/form",
            "/api/events",
        ):
            assert dash.http.get(path).status_code == 401, path
        r = dash.http.post("/api/generate", json={"iterations": 1, "depth": 1})
        assert r.status_code == 401
        login = dash.http.post("/api/login", json={"password": "anything"})
        assert login.status_code == 403 and "CODREAMER_WEB_PASSWORD" in login.json()["detail"]
        page = dash.http.get("/").text
        assert "CODREAMER_WEB_PASSWORD" in page and 'id="generate"' not in page
        assert backend not in page  # the backend's address is not shown either
        assert paths == []  # nothing reached the protected backend
        # The receiver is the backend's to use, and behind auth only signed: an unsigned
        # post (anyone who can reach the port) is refused, naming the secret to set.
        r = dash.post(make_payload())
        assert r.status_code == 401 and "CODREAMER_WEBHOOK_SECRET" in r.json()["detail"]
        assert "Quick note" not in dash.http.get("/").text


def test_password_gives_a_session_that_starts_runs(start_dashboard: Start) -> None:
    received: list[dict[str, Any]] = []
    with serve_in_thread(fake_backend(received)) as backend:
        dash = start_dashboard(api_url=backend, api_key="backend-key", password=PASSWORD)
        assert dash.http.get("/api/session").json() == {
            "auth_required": True,
            "signed_in": False,
            "can_sign_in": True,
        }
        assert dash.http.post("/api/login", json={"password": "wrong"}).status_code == 401
        assert (
            dash.http.post(
                "/api/login",
                content=f'{{"password":"{PASSWORD}"}}',
                headers={"Content-Type": "text/plain"},
            ).status_code
            == 415
        )
        r = dash.http.post("/api/login", json={"password": PASSWORD}, headers={"Origin": FOREIGN})
        assert r.status_code == 403
        r = dash.http.post("/api/login", json={"password": PASSWORD})
        assert r.status_code == 200
        set_cookie = r.headers["set-cookie"].lower()
        assert "httponly" in set_cookie and "samesite=strict" in set_cookie
        # httpx keeps the cookie: one request starts a run.
        assert dash.http.get("/api/state").status_code == 200
        started = dash.http.post("/api/generate", json={"iterations": 1, "depth": 1})
        assert started.status_code == 202 and received[-1]["iterations"] == 1
        assert 'id="generate"' in dash.http.get("/").text
        dash.http.post("/api/logout", json={})
        dash.http.cookies.clear()
        assert dash.http.get("/api/state").status_code == 401


def test_forged_tampered_and_expired_cookies_are_refused(start_dashboard: Start) -> None:
    dash = start_dashboard(password=PASSWORD)
    settings = WebSettings(password=PASSWORD)
    good = make_cookie(settings)
    dash.http.cookies.set(COOKIE, good)
    assert dash.http.get("/api/state").status_code == 200
    expired = make_cookie(settings, now=time.time() - 13 * 3600)
    other_password = make_cookie(WebSettings(password="another one"))
    tampered = good.replace("v1.", "v1.9", 1)
    for bad in (expired, other_password, tampered, "v1.9999999999.x.y", "garbage"):
        dash.http.cookies.clear()
        dash.http.cookies.set(COOKIE, bad)
        assert dash.http.get("/api/state").status_code == 401, bad


def test_wrong_passwords_are_rate_limited(start_dashboard: Start) -> None:
    dash = start_dashboard(password=PASSWORD)
    codes = [
        dash.http.post("/api/login", json={"password": f"guess{i}"}).status_code for i in range(12)
    ]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]
    assert dash.http.post("/api/login", json={"password": PASSWORD}).status_code == 429
    # Another client (another loopback source address) is not locked out by them.
    other = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(base_url=dash.url, transport=other) as client:
        assert client.post("/api/login", json={"password": PASSWORD}).status_code == 200
        assert client.post("/api/login", json={"password": "guess"}).status_code == 401


def test_behind_a_password_only_signed_webhooks_are_taken(
    start_dashboard: Start, make_payload: Make
) -> None:
    import json

    dash = start_dashboard(password=PASSWORD)
    r = dash.http.post("/api/final-email", content=json.dumps(make_payload()),
                       headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 401 and "CODREAMER_WEBHOOK_SECRET" in r.json()["detail"]


def test_no_password_no_key_is_open_locally(start_dashboard: Start) -> None:
    dash = start_dashboard()
    assert dash.http.get("/api/session").json()["auth_required"] is False
    assert dash.http.get("/api/state").status_code == 200


# ---- ordering and clocks ---------------------------------------------------------------


def test_future_created_at_cannot_block_later_runs(
    start_dashboard: Start, make_payload: Make
) -> None:
    dash = start_dashboard()
    future = make_payload(run_id="api-skewed", stage="final", created_at="2100-01-01T00:00:00Z")
    assert dash.post(future).json()["status"] == "accepted"
    later = make_payload(run_id="api-later", iteration=0, stage="baseline")
    assert dash.post(later).json()["status"] == "accepted"
    assert dash.state()["latest"]["run_id"] == "api-later"


def test_late_retry_never_replaces_a_newer_event_of_its_run(
    start_dashboard: Start, make_payload: Make
) -> None:
    dash = start_dashboard()
    assert dash.post(make_payload(run_id="api-a", iteration=2)).json()["status"] == "accepted"
    assert dash.post(make_payload(run_id="api-b", iteration=0)).json()["status"] == "accepted"
    # A's iteration 1, retried late without created_at (so it counts as sent "now"):
    # newer than B by the clock, but older than what A already showed.
    retry = make_payload(run_id="api-a", iteration=1)
    del retry["metrics"]
    assert dash.post(retry).json()["status"] == "stale"
    assert dash.state()["latest"]["run_id"] == "api-b"


def test_page_follows_the_run_it_started(start_dashboard: Start, make_payload: Make) -> None:
    received: list[dict[str, Any]] = []
    with serve_in_thread(fake_backend(received)) as backend:
        dash = start_dashboard(api_url=backend)
        dash.post(make_payload(run_id="api-old", stage="final", iteration=3))
        assert dash.http.post("/api/generate", json={"iterations": 2}).status_code == 202
        state = dash.state()
        # A new run starts with no email of its own: the old one is not shown as its.
        assert state["active_run_id"] == "api-x" and state["active"] is None
        dash.post(make_payload(run_id="api-curl", iteration=0, stage="baseline"))
        state = dash.state()
        assert state["latest"]["run_id"] == "api-curl" and state["active"] is None
        dash.post(make_payload(run_id="api-x", iteration=0, stage="baseline"))
        state = dash.state()
        assert state["active"]["run_id"] == "api-x"
        assert [p["iteration"] for p in state["active_history"]] == [0]
