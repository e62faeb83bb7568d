"""The edge of an HTTP server: bounded request heads, slow-request timeouts and a Host
allowlist, applied before any route, body or key is looked at.

This file is byte-identical in codreamer/api/edge.py and web/edge.py (a test checks
it): the API and the dashboard deploy apart and import nothing from each other, yet
hold the same limits.

* `bounded_protocol(limits)`: uvicorn's httptools protocol that counts the bytes and
  headers of a request head while it arrives, and answers 431 and closes as soon as
  either is over its cap (a 70 MB header costs one read, not 70 MB of memory and
  seconds of parsing); 408 and close when a head or a body arrives too slowly.
* `HostGuard`: ASGI middleware, 400 for a Host that is not allowed (DNS rebinding),
  and the same header caps for a server started without the protocol above.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

# The names this machine answers to on loopback: always allowed.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
_WILDCARD_BINDS = {"0.0.0.0", "::", ""}
# After refusing a request, how long and how much more of it is read and dropped.
LINGER_S = 1.0
LINGER_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class EdgeLimits:
    # Request line plus every header, in bytes; and the number of headers.
    max_head_bytes: int = 32 * 1024
    max_headers: int = 100
    # Seconds a client has to send a whole request head, and then its whole body.
    head_timeout_s: float = 10.0
    body_timeout_s: float = 60.0
    # Lower-case host names without port; "*" allows any.
    allowed_hosts: frozenset[str] = field(default_factory=lambda: LOOPBACK_HOSTS)


def allowed_host_set(configured: str | None, *urls_and_hosts: str | None) -> frozenset[str]:
    """CODREAMER_ALLOWED_HOSTS (comma-separated names, `*` for any), or the loopback
    names when unset; plus the hosts of the configured public URLs / bind addresses."""
    names = set(LOOPBACK_HOSTS)
    if configured:
        names = {h.strip().lower() for h in configured.split(",") if h.strip()} | LOOPBACK_HOSTS
    for item in urls_and_hosts:
        if not item:
            continue
        host = urlsplit(item).hostname if "://" in item else item.strip().lower()
        if host and host not in _WILDCARD_BINDS:
            names.add(host.lower())
    return frozenset(names)


def host_name(header: str) -> str:
    """`Example.COM:8000` -> `example.com`; `[::1]:8000` -> `::1`."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def host_allowed(header: str | None, allowed: frozenset[str]) -> bool:
    if "*" in allowed:
        return True
    if not header:
        return False
    name = host_name(header)
    return name in allowed or f"[{name}]" in allowed


def error_bytes(status: int, where: str, message: str) -> bytes:
    """The JSON error both deployables answer with: detail, problems, problem_count."""
    body = {"detail": message, "problems": [{"where": where, "message": message}]}
    return json.dumps({**body, "problem_count": 1}).encode()


_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


def raw_response(status: int, where: str, message: str) -> bytes:
    body = error_bytes(status, where, message)
    head = [
        b"HTTP/1.1 %d %s" % (status, _REASONS[status]),
        b"content-type: application/json",
        b"content-length: %d" % len(body),
        b"connection: close",
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class _Refused(Exception):
    """Raised from a parser callback to stop parsing a refused request."""


def bounded_protocol(limits: EdgeLimits) -> type[asyncio.Protocol]:
    """A uvicorn HTTP protocol class holding `limits` (pass it as `http=`)."""
    # Deferred: uvicorn's httptools protocol only when a server is built.
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class BoundedHttpToolsProtocol(HttpToolsProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._in_head = True
            self._head_bytes = 0
            self._header_count = 0
            self._too_many = False
            self._refused = False
            self._dropped = 0
            self._head_timer: asyncio.TimerHandle | None = None
            self._body_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._head_timer = self.loop.call_later(limits.head_timeout_s, self._head_late)

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_timers()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused:  # lingering after a refusal: read and drop (see _refuse)
                self._dropped += len(data)
                if self._dropped > LINGER_BYTES:
                    self.transport.close()
                return
            if self._in_head:  # counted before parsing: nothing is kept past the cap
                self._head_bytes += len(data)
            super().data_received(data)
            if self._in_head and self._head_bytes > limits.max_head_bytes:
                self._refuse(
                    431,
                    f"request head over {limits.max_head_bytes:,} bytes "
                    "(request line and headers; CODREAMER_MAX_HEADER_BYTES)",
                )

        def send_400_response(self, msg: str) -> None:
            if not self._refused:  # our own _Refused surfaces here as a parser error
                super().send_400_response(msg)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_head = True
            self._header_count = 0
            self._too_many = False

        def on_header(self, name: bytes, value: bytes) -> None:
            self._header_count += 1
            if self._header_count > limits.max_headers:
                self._too_many = True  # not kept; refused once the head is complete
                return
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._in_head = False
            self._head_bytes = 0
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            if self._too_many:
                self._refuse(431, f"more than {limits.max_headers} headers (CODREAMER_MAX_HEADERS)")
                raise _Refused  # httptools turns it into a parse error: parsing stops
            self._body_timer = self.loop.call_later(limits.body_timeout_s, self._body_late)
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            if self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None
            self._in_head = True
            super().on_message_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self._in_head and self._head_timer is None:
                self._head_timer = self.loop.call_later(limits.head_timeout_s, self._head_late)

        def _head_late(self) -> None:
            self._head_timer = None
            if self._refused or not self._in_head or self.transport.is_closing():
                return
            busy = self.cycle is not None and not self.cycle.response_complete
            if busy:  # a pipelined head behind a long response: wait for the response
                return
            if self._head_bytes == 0:  # an idle connection: uvicorn's keep-alive's job
                self.transport.close()
                return
            self._refuse(
                408,
                f"request head not complete within {limits.head_timeout_s:g} s "
                "(CODREAMER_HEADER_TIMEOUT)",
            )

        def _body_late(self) -> None:
            self._body_timer = None
            cycle = self.cycle
            if self._refused or cycle is None or not cycle.more_body:
                return
            message = (
                f"request body not complete within {limits.body_timeout_s:g} s "
                "(CODREAMER_BODY_TIMEOUT)"
            )
            if cycle.response_started:
                self._refused = True
                self.transport.close()
            else:
                self._refuse(408, message)
            # The route waiting for the rest of the body sees a disconnect.
            cycle.disconnected = True
            cycle.message_event.set()

        def _refuse(self, status: int, message: str) -> None:
            self._refused = True
            self._cancel_timers()
            if self.transport.is_closing():
                return
            self.transport.write(raw_response(status, "headers", message))
            if not self.transport.can_write_eof():
                self.transport.close()
                return
            # A lingering close: closing a socket with unread bytes sends a reset, which
            # can reach the client before our answer and erase it. Send the answer and
            # EOF, drop what still comes for a moment, then close.
            self.transport.write_eof()
            self.loop.call_later(LINGER_S, self.transport.close)

        def _cancel_timers(self) -> None:
            for timer in (self._head_timer, self._body_timer):
                if timer is not None:
                    timer.cancel()
            self._head_timer = self._body_timer = None

    return BoundedHttpToolsProtocol


class HostGuard:
    """ASGI middleware: 400 for a Host not in the allowlist, 431 for too many or too
    large headers (when the server was not started with `bounded_protocol`)."""

    def __init__(self, app: Any, limits: EdgeLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers") or []
        problem = self._problem(headers)
        if problem is None:
            await self.app(scope, receive, send)
            return
        status, where, message = problem
        body = error_bytes(status, where, message)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _problem(self, headers: list[tuple[bytes, bytes]]) -> tuple[int, str, str] | None:
        limits = self.limits
        if len(headers) > limits.max_headers:
            return 431, "headers", f"more than {limits.max_headers} headers"
        if sum(len(k) + len(v) + 4 for k, v in headers) > limits.max_head_bytes:
            return 431, "headers", f"headers over {limits.max_head_bytes:,} bytes"
        host = next((v for k, v in headers if k == b"host"), None)
        text = host.decode("latin-1") if host is not None else None
        if not host_allowed(text, limits.allowed_hosts):
            shown = (text or "")[:100]
            return (
                400,
                "header.Host",
                f"Host {shown!r} is not served here; allowed: "
                f"{', '.join(sorted(limits.allowed_hosts))[:300]} (CODREAMER_ALLOWED_HOSTS)",
            )
        return None
