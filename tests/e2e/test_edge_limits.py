"""The edge of both deployables on real servers: bounded request heads (431), slow
heads and bodies (408), a Host allowlist (400), URLs never built from the Host."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.api import ApiServer
from tests.support.paths import REPO
from tests.support.server import serve_in_thread
from web.app import create_app, server_options
from web.config import WebSettings

pytestmark = pytest.mark.e2e

EDGE_ENV = {"CODREAMER_HEADER_TIMEOUT": "1", "CODREAMER_BODY_TIMEOUT": "2"}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    server = ApiServer(tmp_path_factory.mktemp("edge-api"), EDGE_ENV).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def dashboard() -> Iterator[str]:
    settings = WebSettings(api_url="http://127.0.0.1:9", header_timeout_s=1, body_timeout_s=2)
    with serve_in_thread(create_app(settings), **server_options(settings)) as url:
        yield url


def _exchange(url: str, head: bytes, body: bytes = b"", timeout: float = 10.0) -> bytes:
    """Send raw bytes, then read the whole answer (the server closes after it)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        # Refused while still sending: the answer is already on its way.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            s.sendall(head + body)
        chunks = []
        while True:
            data = s.recv(65536)
            if not data:
                break
            chunks.append(data)
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def _servers(api: ApiServer, dashboard: str) -> list[str]:
    return [api.url, dashboard]


def test_a_huge_header_gets_431_at_once_and_bounded(api: ApiServer, dashboard: str) -> None:
    for url in _servers(api, dashboard):
        head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 3_000_000
        started = time.monotonic()
        answer = _exchange(url, head + b"\r\n\r\n")
        assert _status(answer) == 431, answer[:300]
        assert b"CODREAMER_MAX_HEADER_BYTES" in answer
        assert len(answer) < 1000
        assert time.monotonic() - started < 5


def test_too_many_headers_get_431(api: ApiServer, dashboard: str) -> None:
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(150))
    for url in _servers(api, dashboard):
        answer = _exchange(url, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n")
        assert _status(answer) == 431, answer[:300]
        assert b"more than 100 headers" in answer
    # 90 headers are fine.
    fine = {f"X-H{i}": "v" for i in range(90)}
    assert httpx.get(api.url + "/healthz", headers=fine).status_code == 200


def test_a_head_sent_too_slowly_gets_408(api: ApiServer, dashboard: str) -> None:
    for url in _servers(api, dashboard):
        started = time.monotonic()
        # The head never ends: the server's own timer closes it (recv waits on it).
        answer = _exchange(url, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: b\r\n")
        assert _status(answer) == 408, answer[:300]
        assert b"CODREAMER_HEADER_TIMEOUT" in answer
        assert 0.9 < time.monotonic() - started < 5


def test_a_body_sent_too_slowly_gets_408(api: ApiServer, dashboard: str) -> None:
    for url, path in ((api.url, "/learn-loop"), (dashboard, "/api/final-email")):
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n"
        ).encode()
        started = time.monotonic()
        answer = _exchange(url, head, b'{"iterations": ')
        assert _status(answer) == 408, answer[:300]
        assert b"CODREAMER_BODY_TIMEOUT" in answer
        assert 1.9 < time.monotonic() - started < 6


def test_other_clients_are_served_while_a_huge_header_arrives(api: ApiServer) -> None:
    stop = threading.Event()

    def flood() -> None:
        host, port = api.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as s:
            try:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
                while not stop.is_set():
                    s.sendall(b"a" * 65536)
            except OSError:
                pass

    t = threading.Thread(target=flood)
    t.start()
    try:
        worst = 0.0
        for _ in range(10):
            started = time.monotonic()
            assert httpx.get(api.url + "/healthz", timeout=5).status_code == 200
            worst = max(worst, time.monotonic() - started)
        assert worst < 1.0
    finally:
        stop.set()
        t.join(10)


@pytest.mark.parametrize("host", ["rebind.attacker.example", "127.0.0.1.nip.io:8000", ""])
def test_a_foreign_host_gets_400(api: ApiServer, dashboard: str, host: str) -> None:
    runs = api.results / "runs"
    before = set(runs.iterdir()) if runs.exists() else set()
    for url in _servers(api, dashboard):
        r = httpx.get(url + "/healthz", headers={"Host": host})
        assert r.status_code == 400, r.text
        assert r.json()["problems"][0]["where"] == "header.Host"
    r = httpx.post(
        api.url + "/learn-loop",
        json={"iterations": 1},
        headers={"Host": "rebind.attacker.example"},
    )
    assert r.status_code == 400
    assert (set(runs.iterdir()) if runs.exists() else set()) == before


def test_dns_rebinding_cannot_write_through_the_dashboard(dashboard: str) -> None:
    evil = {"Host": "rebind.attacker.example:3000", "Origin": "http://rebind.attacker.example:3000"}
    for method, path in (
        ("POST", "/api/generate"),
        ("GET", "/api/state"),
        ("POST", "/api/final-email"),
    ):
        r = httpx.request(method, dashboard + path, headers=evil, json={})
        assert r.status_code == 400, (path, r.text)
    # The page itself, from its real origin, still writes (a bad payload: 422, not 403).
    port = dashboard.rsplit(":", 1)[1]
    own = {"Origin": f"http://localhost:{port}", "Host": f"localhost:{port}"}
    r = httpx.post(dashboard + "/api/final-email", headers=own, json={"run_id": "x"})
    assert r.status_code == 422, r.text


def test_loopback_names_and_the_public_host_are_allowed(tmp_path: Path) -> None:
    env = {**EDGE_ENV, "CODREAMER_PUBLIC_URL": "https://api.example.com/"}
    server = ApiServer(tmp_path, env).start()
    try:
        for host in ("localhost", f"localhost:{server.port}", "[::1]:8000", "api.example.com"):
            r = httpx.get(server.url + "/healthz", headers={"Host": host})
            assert r.status_code == 200, (host, r.text)
        r = httpx.post(
            server.url + "/learn-loop",
            json={"iterations": 1, "depth": 2, "group_size": 2},
            headers={"Host": "api.example.com"},
        )
        assert r.status_code == 202, r.text
        run = r.json()
        assert run["status_url"] == f"https://api.example.com/runs/{run['run_id']}"
        assert run["events_url"].startswith("https://api.example.com/runs/")
        assert run["graph_url"].endswith(f"/runs/{run['run_id']}/graph")
    finally:
        server.stop()


def test_urls_are_relative_without_a_public_url(api: ApiServer) -> None:
    r = httpx.post(
        api.url + "/learn-loop",
        json={"iterations": 1, "depth": 2, "group_size": 2},
        headers={"Host": "localhost"},
    )
    assert r.status_code == 202, r.text
    run = r.json()
    assert run["status_url"] == f"/runs/{run['run_id']}"
    assert run["events_url"] == f"/runs/{run['run_id']}/events"
    listed = httpx.get(api.url + "/runs").json()["runs"]
    assert all(x["status_url"].startswith("/runs/") for x in listed)


def test_both_deployables_share_one_edge_module() -> None:
    api_edge = (REPO / "codreamer" / "api" / "edge.py").read_bytes()
    assert api_edge == (REPO / "web" / "edge.py").read_bytes()
