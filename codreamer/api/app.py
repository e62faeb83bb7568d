"""The FastAPI application factory: settings, run manager, errors, limits, CORS."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from swagger_ui_bundle import swagger_ui_path

from codreamer.api.agent_routes import agents_router
from codreamer.api.edge import EdgeLimits, HostGuard, allowed_host_set, bounded_protocol
from codreamer.api.errors import install_error_handlers
from codreamer.api.routes import open_router, router
from codreamer.api.service import Catalog
from codreamer.api.stream import StreamSlots
from codreamer.config import Settings, get_settings
from codreamer.runs.executors import Executor, make_executor
from codreamer.runs.retention import RetentionPruner
from codreamer.runs.write_jobs import WriteJobs


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is over the limit of {limit} bytes")


class BodyLimitMiddleware:
    """413 for bodies over the cap: at once from Content-Length, else while streaming
    (a chunked body is counted as it arrives and cut off at the cap)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    too_big = False
                if too_big:
                    await _send_413(send, self.max_bytes)
                    return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        await self.app(scope, limited, send)


async def _send_413(send: Send, limit: int) -> None:
    detail = f"request body is over the limit of {limit:,} bytes (CODREAMER_MAX_BODY_BYTES)"
    response = JSONResponse(
        {"detail": detail, "problems": [{"where": "body", "message": detail}], "problem_count": 1},
        status_code=413,
    )
    await response({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


def create_app(settings: Settings | None = None, *, manager: Executor | None = None) -> FastAPI:
    settings = settings or get_settings()
    # local (default) or celery (CODREAMER_BROKER_URL): same interface, DESIGN §6.
    manager = manager or make_executor(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The executor also delivers the store's pending webhooks (DESIGN §7), with
        # the claims of its mode.
        manager.start()
        app.state.write_jobs.recover()
        pruner = None
        if settings.retention_days:
            pruner = RetentionPruner(settings.results_dir, settings.retention_days).start()
        try:
            yield
        finally:
            manager.shutdown()
            app.state.write_jobs.shutdown()
            if pruner is not None:
                pruner.close()

    app = FastAPI(
        title="CoDreamer API",
        version="0.1.0",
        description="Start learn-loop runs over a knowledge graph, follow them, read their "
        "emails and node scores. When CODREAMER_API_KEY is set, every endpoint except "
        "GET /healthz (and this page) needs `Authorization: Bearer <key>`: use Authorize.",
        lifespan=lifespan,
        docs_url=None,  # served below from local assets: /docs works offline
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.manager = manager
    app.state.catalog = Catalog(settings)
    app.state.stream_slots = StreamSlots(
        settings.max_event_streams, settings.max_event_streams_per_client
    )
    app.state.write_jobs = WriteJobs(settings.results_dir, settings.test_event_gate)
    install_error_handlers(app)
    app.include_router(router)
    app.include_router(agents_router)
    app.include_router(open_router)
    _add_offline_docs(app)
    origins = [o.strip() for o in settings.cors_origins.split(",") if o.strip()]
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
    )
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    # Outermost: a foreign Host or an oversized head is refused before anything else.
    app.add_middleware(HostGuard, limits=edge_limits(settings))
    return app


def edge_limits(settings: Settings) -> EdgeLimits:
    return EdgeLimits(
        max_head_bytes=settings.max_header_bytes,
        max_headers=settings.max_headers,
        head_timeout_s=settings.header_timeout_s,
        body_timeout_s=settings.body_timeout_s,
        allowed_hosts=allowed_host_set(
            settings.allowed_hosts, settings.public_url, settings.api_host
        ),
    )


def server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn options that bound request heads and slow requests (codreamer/api/edge.py)."""
    return {"http": bounded_protocol(edge_limits(settings))}


def _add_offline_docs(app: FastAPI) -> None:
    """Swagger UI from the swagger-ui-bundle-v2 package's files, not a CDN, so /docs
    works on a machine without internet. The page and its assets hold no data and
    need no key (a browser cannot send one when opening a page); the calls made from
    it do, through its Authorize button."""
    app.mount("/docs/static", StaticFiles(directory=str(swagger_ui_path)), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - docs",
            swagger_js_url="/docs/static/swagger-ui-bundle.js",
            swagger_css_url="/docs/static/swagger-ui.css",
            swagger_favicon_url="/docs/static/favicon-32x32.png",
        )


def app_factory() -> FastAPI:
    """For `uvicorn --factory codreamer.api.app:app_factory`."""
    return create_app()
