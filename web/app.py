"""The dashboard's app factory and entry point (`codreamer web`, `python -m web`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from web import api, page, receiver, session
from web.config import WebSettings
from web.context import WebContext

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
    app.add_middleware(SecurityHeaders)
    return app


def main(host: str | None = None, port: int | None = None) -> None:
    """Serve the dashboard with uvicorn (default 127.0.0.1:3000, see `WebSettings`)."""
    import uvicorn

    settings = WebSettings()
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        # Open SSE streams must not hold a restart hostage.
        timeout_graceful_shutdown=3,
    )
