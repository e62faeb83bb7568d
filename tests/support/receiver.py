"""Real, scriptable webhook receivers on loopback for the API and sender tests.

`Receiver` is a threaded http.server with the behaviours below; `IdReceiver` is an
async app that many senders hit at once, answering by webhook-id.

Behaviours: answer 200; answer a scripted list of statuses then 200; always
answer one status; hang before answering; be down (connection refused) for the
first N seconds. Every request that reaches it is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fastapi import FastAPI, Request, Response

from tests.support.server import free_port

# Requests to this path are answered and not recorded (see `Receiver.settle`).
BARRIER_PATH = "/__settle__"


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int
    at: float

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def stage(self) -> str | None:
        return self.headers.get("x-codreamer-stage")


@dataclass
class Receiver:
    """Start with `start()`, stop with `stop()`; `url` is ready before it listens."""

    statuses: list[int] = field(default_factory=list)  # answered in turn, then `default`
    default: int = 200
    hang_s: float = 0.0
    down_for_s: float = 0.0
    retry_after: str | None = None
    # Decides the status from the parsed body (may sleep to hang that one request);
    # overrides `statuses` and `default`.
    respond: Callable[[Any], int] | None = None
    port: int = field(default_factory=free_port)
    received: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Condition()  # notified on every request recorded
        self._in_flight = 0  # connections accepted and not yet answered
        self._server: ThreadingHTTPServer | None = None
        self._started = threading.Event()
        self._stopped = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/final-email"

    def start(self) -> Receiver:
        threading.Thread(target=self._serve, daemon=True).start()
        if self.down_for_s <= 0:
            self._started.wait(5)
        return self

    def _serve(self) -> None:
        if self.down_for_s > 0:
            time.sleep(self.down_for_s)  # the outage under test, not a wait for anything
        if self._stopped:
            return
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                if self.path == BARRIER_PATH:
                    self.send_response(204)
                    self.end_headers()
                    return
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                if receiver.respond is not None:
                    status = receiver.respond(json.loads(body or b"null"))
                else:
                    with receiver._lock:
                        status = receiver.statuses.pop(0) if receiver.statuses else receiver.default
                if receiver.hang_s:
                    time.sleep(receiver.hang_s)  # a slow receiver: the thing under test
                with receiver._lock:
                    receiver.received.append(
                        Received(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                            status,
                            time.monotonic(),
                        )
                    )
                    receiver._lock.notify_all()
                self.send_response(status)
                if receiver.retry_after and status in (429, 503):
                    self.send_header("Retry-After", receiver.retry_after)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                with contextlib.suppress(OSError):  # the client timed out and left
                    self.wfile.write(b"{}")

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            # Counted in the accepting thread, so a request accepted before the
            # barrier's is in flight by the time the barrier is answered.
            def process_request(self, request: Any, client_address: Any) -> None:
                with receiver._lock:
                    receiver._in_flight += 1
                super().process_request(request, client_address)

            def shutdown_request(self, request: Any) -> None:
                super().shutdown_request(request)
                with receiver._lock:
                    receiver._in_flight -= 1
                    receiver._lock.notify_all()

        server = Server(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self._server = server
        self._started.set()
        server.serve_forever(poll_interval=0.05)

    def stop(self) -> None:
        self._stopped = True
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def ok(self) -> list[Received]:
        with self._lock:
            return [r for r in self.received if 200 <= r.status < 300]

    def ok_ids(self) -> list[str]:
        """The webhook-id of every acknowledged request (a duplicate shows twice)."""
        return [r.headers.get("webhook-id", "") for r in self.ok()]

    def wait_for(self, n: int, timeout: float = 30.0, *, ok_only: bool = True) -> list[Received]:
        """Wait (woken by each request recorded) until `n` requests have arrived."""

        def got() -> list[Received]:
            return [r for r in self.received if 200 <= r.status < 300 or not ok_only]

        with self._lock:
            if not self._lock.wait_for(lambda: len(got()) >= n, timeout):
                raise AssertionError(f"receiver got {len(self.received)} requests, wanted {n}")
            return got()

    def wait_until(
        self, pred: Callable[[list[Received]], bool], timeout: float = 30.0
    ) -> list[Received]:
        """Wait (woken by each request recorded) until `pred(every request so far)`."""
        with self._lock:
            if not self._lock.wait_for(lambda: pred(self.received), timeout):
                raise AssertionError(f"not within {timeout}s: {len(self.received)} requests")
            return list(self.received)

    def settle(self, timeout: float = 30.0) -> None:
        """Once every sender has stopped: return when every request they started has
        been answered and recorded. A request of our own goes through the same listen
        queue after theirs (accepted in order), then the in-flight count drains; so no
        sleep is needed to be sure that no late duplicate is still on its way."""
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("POST", BARRIER_PATH, body=b"")
            assert conn.getresponse().status == 204
        finally:
            conn.close()
        with self._lock:
            if not self._lock.wait_for(lambda: self._in_flight == 0, timeout):
                raise AssertionError(f"{self._in_flight} requests still in flight")

    def __enter__(self) -> Receiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class IdReceiver:
    """An async webhook receiver (an ASGI app: serve it with `serve_in_thread(rx.app)`),
    for many concurrent senders. POST /hook answers `decide(webhook_id, seen)`, where
    `seen` counts the earlier requests with that id, after `delay_s`; every request is
    recorded as (webhook-id, status)."""

    def __init__(self, decide: Callable[[str, int], int], delay_s: float = 0.0) -> None:
        self.requests: list[tuple[str, int]] = []
        self.in_flight = 0
        self._lock = threading.Condition()  # notified on every request and answer
        self.app = FastAPI()

        @self.app.post("/hook")
        async def hook(request: Request) -> Response:
            with self._lock:
                self.in_flight += 1
            try:
                await request.body()
                wid = request.headers.get("webhook-id", "")
                if delay_s:
                    await asyncio.sleep(delay_s)  # a receiver takes a moment: widens races
                with self._lock:
                    status = decide(wid, sum(1 for w, _ in self.requests if w == wid))
                    self.requests.append((wid, status))
                return Response(status_code=status)
            finally:
                with self._lock:
                    self.in_flight -= 1
                    self._lock.notify_all()

    def wait_until(self, pred: Callable[[list[tuple[str, int]]], bool], timeout: float) -> bool:
        """Whether `pred(every request so far)` came true within `timeout` (woken by each
        request)."""
        with self._lock:
            return self._lock.wait_for(lambda: pred(self.requests), timeout)

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Every request that reached the receiver has been answered."""
        with self._lock:
            assert self._lock.wait_for(lambda: self.in_flight == 0, timeout), "still answering"

    def by_id(self, status: int | None = None) -> Counter[str]:
        with self._lock:
            return Counter(w for w, s in self.requests if status is None or s == status)
