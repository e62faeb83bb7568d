"""The dashboard's app factory and entry point (`codreamer web`, `python -m web`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from web import api, page, receiver, session
from web.config import WebSettings
from web.context import WebContext
from web.edge import EdgeLimits, HostGuard, allowed_host_set, bounded_protocol

STATIC_DIR = Path(__file__).parent / "static"

# Scripts and styles only from our own origin: with no 'unsafe-inline', anything a
# webhook smuggles into the page as markup could not run even if escaping failed.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Plain ASGI middleware: `BaseHTTPMiddleware` would cost the receiver latency."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


# The backend's paths: sent here, they were meant for the API's port.
BACKEND_PATHS = ("/learn-loop", "/runs", "/scenarios", "/agents", "/feedback", "/docs")


def not_found_body(method: str, path: str, api_url: str) -> dict[str, Any]:
    """A 404 that says which server this is, since the usual cause is a request meant
    for the backend sent to the dashboard's port."""
    shown = f"{method} {path}"[:200]
    if path.startswith(BACKEND_PATHS):
        hint = (
            f"this is the dashboard, not the API: send {method} {path[:100]} to the "
            f"backend at {api_url} (the dashboard starts runs with its own form)"
        )
    else:
        hint = f"no such page on the dashboard; open / (the API is at {api_url}, see /docs)"
    return {"detail": f"not found: {shown}", "problems": [{"where": shown, "message": hint}]}


def create_app(settings: WebSettings | None = None) -> FastAPI:
    ctx = WebContext.build(settings or WebSettings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await ctx.backend.aclose()

    app = FastAPI(title="CoDreamer dashboard", lifespan=lifespan)
    app.state.ctx = ctx
    session.install(app)
    app.include_router(receiver.router)
    app.include_router(api.router)
    app.include_router(page.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    async def not_found(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404 and exc.detail == "Not Found":
            body = not_found_body(request.method, request.url.path, ctx.backend.base_url)
            return JSONResponse(body, status_code=404)
        return await http_exception_handler(request, exc)

    app.add_exception_handler(HTTPException, not_found)
    app.add_middleware(SecurityHeaders)
    # Outermost: a foreign Host or an oversized head is refused before anything else.
    app.add_middleware(HostGuard, limits=edge_limits(ctx.settings))
    return app


def edge_limits(settings: WebSettings) -> EdgeLimits:
    return EdgeLimits(
        max_head_bytes=settings.max_header_bytes,
        max_headers=settings.max_headers,
        head_timeout_s=settings.header_timeout_s,
        body_timeout_s=settings.body_timeout_s,
        allowed_hosts=allowed_host_set(settings.allowed_hosts, settings.public_url, settings.host),
    )


def server_options(settings: WebSettings) -> dict[str, Any]:
    """uvicorn options that bound request heads and slow requests (web/edge.py)."""
    return {"http": bounded_protocol(edge_limits(settings))}


def main(host: str | None = None, port: int | None = None) -> None:
    """Serve the dashboard with uvicorn (default 127.0.0.1:3000, see `WebSettings`)."""
    import uvicorn

    settings = WebSettings()
    if host:
        settings.host = host
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=port or settings.port,
        # Open SSE streams must not hold a restart hostage.
        timeout_graceful_shutdown=3,
        **server_options(settings),
    )
