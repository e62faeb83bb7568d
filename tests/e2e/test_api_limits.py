"""Limits of a real API server: the key on every endpoint, caps on open event streams,
/docs without internet, and a port already in use (issues 10 and 14)."""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.api import ApiServer, weave_request
from tests.support.browser import chromium
from tests.support.cli import run_cli
from tests.support.env import bare_env
from tests.support.server import free_port

pytestmark = pytest.mark.e2e

KEY = "k3y-for-tests"
LONG = {"iterations": 50, "depth": 12, "group_size": 256}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    server = ApiServer(
        tmp_path_factory.mktemp("api-keyed"),
        {
            "CODREAMER_API_KEY": KEY,
            "CODREAMER_MAX_EVENT_STREAMS": "5",
            "CODREAMER_MAX_EVENT_STREAMS_PER_CLIENT": "3",
        },
    ).start()
    yield server
    server.stop()


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {KEY}"}


def test_with_a_key_every_endpoint_but_healthz_needs_it(keyed: ApiServer) -> None:
    r = httpx.post(f"{keyed.url}/learn-loop", json={**weave_request(), "iterations": 1},
                   headers=_auth(), timeout=30)  # fmt: skip
    assert r.status_code == 202, r.text
    run_id = r.json()["run_id"]
    spec = httpx.get(f"{keyed.url}/openapi.json", timeout=10).json()
    operations = [
        (method.upper(), path.replace("{run_id}", run_id))
        for path, item in spec["paths"].items()
        for method in item
    ]
    assert len(operations) >= 10
    for method, path in operations:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}):
            r = httpx.request(method, keyed.url + path, headers=headers, timeout=10)
            if path == "/healthz":
                assert r.status_code == 200
                continue
            assert r.status_code == 401, (method, path, headers, r.status_code)
            assert r.headers["www-authenticate"] == "Bearer"
            assert r.json()["problems"][0]["where"] == "header.Authorization"
            assert "Alex" not in r.text and "@" not in r.text
    # With the key the reads answer; a hostile body without it is not even parsed.
    for path in ("/runs", f"/runs/{run_id}", f"/runs/{run_id}/graph", "/scenarios"):
        assert httpx.get(keyed.url + path, headers=_auth(), timeout=10).status_code == 200
    r = httpx.post(f"{keyed.url}/learn-loop", content=b"[" * 100_000,
                   headers={"Content-Type": "application/json"}, timeout=10)  # fmt: skip
    assert r.status_code == 401
    # The docs page and its assets hold no data: open, so a browser can show them.
    assert httpx.get(f"{keyed.url}/docs", timeout=10).status_code == 200
    assert httpx.get(f"{keyed.url}/openapi.json", timeout=10).status_code == 200


def test_event_streams_are_capped_per_client_and_in_total(keyed: ApiServer) -> None:
    r = httpx.post(f"{keyed.url}/learn-loop", json={**weave_request(), **LONG},
                   headers=_auth(), timeout=30)  # fmt: skip
    run_id = r.json()["run_id"]
    url = f"{keyed.url}/runs/{run_id}/events"

    async def scenario() -> None:
        # Two client addresses: 127.0.0.1 and 127.0.0.2 (both loopback).
        one = httpx.AsyncClient(headers=_auth(), timeout=30)
        two = httpx.AsyncClient(
            headers=_auth(),
            timeout=30,
            transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2"),
        )
        opened: list[httpx.Response] = []
        try:
            for _ in range(3):
                resp = await one.send(one.build_request("GET", url), stream=True)
                assert resp.status_code == 200
                opened.append(resp)
            over = await one.get(url)
            assert over.status_code == 429 and over.headers["retry-after"]
            assert "this client has 3 event streams open" in over.json()["detail"]
            for _ in range(2):
                resp = await two.send(two.build_request("GET", url), stream=True)
                assert resp.status_code == 200
                opened.append(resp)
            total = await two.get(url)  # 5 open in all: the server's cap
            assert total.status_code == 429
            assert "5 event streams are open on this server" in total.json()["detail"]
            await opened.pop(0).aclose()  # a slot comes back when a stream closes
            # The server frees the slot when it sees the stream closed, on its own
            # loop: ask again until it has (a generous bound for a busy machine).
            for _ in range(300):
                await asyncio.sleep(0.1)
                again = await one.send(one.build_request("GET", url), stream=True)
                if again.status_code == 200:
                    opened.append(again)
                    break
                await again.aclose()
            else:
                raise AssertionError("the closed stream's slot never came back")
            # Other requests are untouched by the cap.
            assert (await one.get(f"{keyed.url}/runs/{run_id}")).status_code == 200
        finally:
            for resp in opened:
                await resp.aclose()
            await one.aclose()
            await two.aclose()

    asyncio.run(scenario())
    httpx.post(f"{keyed.url}/runs/{run_id}/cancel", json={}, headers=_auth(), timeout=10)


def test_docs_are_served_from_local_assets(keyed: ApiServer) -> None:
    html = httpx.get(f"{keyed.url}/docs", timeout=10).text
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/") for s in sources), sources
    assert "cdn" not in html.lower()
    for asset in sources:
        assert httpx.get(keyed.url + asset, timeout=10).status_code == 200, asset


def test_docs_render_in_a_browser_without_internet(keyed: ApiServer) -> None:
    with chromium() as browser:
        page = browser.new_page()
        outside: list[str] = []

        def route(r: object) -> None:  # anything not on this server is refused
            req = r.request  # type: ignore[attr-defined]
            if req.url.startswith(keyed.url):
                r.continue_()  # type: ignore[attr-defined]
            else:
                outside.append(req.url)
                r.abort()  # type: ignore[attr-defined]

        page.route("**/*", route)
        page.goto(f"{keyed.url}/docs")
        page.wait_for_selector(".opblock", timeout=20_000)
        text = page.inner_text("body")
        assert "/learn-loop" in text and "/runs/{run_id}/events" in text
        assert page.locator(".btn.authorize").count() == 1  # where the key goes
        assert outside == []


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["api", "--port", "{busy}"], "--port"),
        (["web", "--port", "{busy}"], "--port"),
        (["serve", "--port", "{busy}", "--web-port", "{free}"], "--port"),
        (["serve", "--port", "{free}", "--web-port", "{busy}"], "--web-port"),
    ],
    ids=["api", "web", "serve-api", "serve-dashboard"],
)
def test_a_port_in_use_gets_one_line_naming_the_flag(
    tmp_path: Path, args: list[str], flag: str
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        argv = [a.format(busy=port, free=free_port()) for a in args]
        r = run_cli(*argv, cwd=tmp_path, base=bare_env(tmp_path), timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"port {port} on 127.0.0.1 is already in use" in lines[0]
    assert f"choose another with {flag}" in lines[0]
    assert "Traceback" not in r.stdout + r.stderr
