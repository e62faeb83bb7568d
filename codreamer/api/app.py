"""The FastAPI application factory: settings, run manager, errors, limits, CORS."""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from codreamer.api.runs import RunManager
from codreamer.api.service import Catalog
from codreamer.config import Settings, get_settings
from codreamer.errors import (
    ConfigError,
    DataFileError,
    GraphTooLargeError,
    GraphValidationError,
    InvalidRunIdError,
    QueueFullError,
    RunNotFoundError,
    RunStateError,
    ScenarioError,
)

# The one table from typed errors to HTTP statuses. Order matters: subclasses first.
ERROR_STATUS: list[tuple[type[Exception], int]] = [
    (GraphTooLargeError, 413),
    (GraphValidationError, 422),
    (ScenarioError, 422),
    (ConfigError, 422),
    (InvalidRunIdError, 422),
    (RunNotFoundError, 404),
    (RunStateError, 409),
    (QueueFullError, 429),
    (DataFileError, 503),  # the server's own data file is broken: not the client's fault
]


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
    response = JSONResponse(
        {"detail": f"request body is over the limit of {limit} bytes", "problems": []},
        status_code=413,
    )
    await response({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


# What a one-problem error is about, so every 4xx body names its field.
ERROR_WHERE: list[tuple[type[Exception], str]] = [
    (ScenarioError, "scenario"),
    (ConfigError, "policy/judge"),
    (InvalidRunIdError, "run_id"),
    (RunNotFoundError, "run_id"),
]


def _error_body(exc: Exception) -> dict[str, Any]:
    problems = [{"where": p.where, "message": p.message} for p in getattr(exc, "problems", [])]
    if not problems:
        where = next((w for cls, w in ERROR_WHERE if isinstance(exc, cls)), None)
        if where is not None:
            message = str(exc).removeprefix(f"{where}: ")  # the where is said once
            problems = [{"where": where, "message": message}]
    return {"detail": str(exc), "problems": problems}


def _problem(e: Any) -> dict[str, str]:
    loc = [str(x) for x in e.get("loc", ())]
    if e.get("type") == "json_invalid":
        # FastAPI puts the character offset in `loc`; say it in words.
        at = f" at character {loc[1]}" if len(loc) > 1 else ""
        return {"where": "body", "message": f"not valid JSON{at}: {e['msg']}"}
    # A field typed as a union (e.g. scenario: id | object) reports each branch by its
    # type name; the names mean nothing to a caller, so they are left out.
    loc = [x for x in loc if x not in ("str", "Scenario", "int", "list[dict[str, Any]]")]
    return {"where": ".".join(loc) or "body", "message": e["msg"]}


def _install_error_handlers(app: FastAPI) -> None:
    async def typed(request: Request, exc: Exception) -> JSONResponse:
        for cls, status in ERROR_STATUS:
            if isinstance(exc, cls):
                headers = None
                if isinstance(exc, QueueFullError):
                    headers = {"Retry-After": str(exc.retry_after)}
                return JSONResponse(_error_body(exc), status_code=status, headers=headers)
        raise exc

    for cls, _ in ERROR_STATUS:
        app.add_exception_handler(cls, typed)

    async def validation(request: Request, exc: Exception) -> JSONResponse:
        errors = exc.errors() if isinstance(exc, (RequestValidationError, ValidationError)) else []
        problems = [_problem(e) for e in errors]
        detail = "; ".join(f"{p['where']}: {p['message']}" for p in problems) or "invalid request"
        return JSONResponse({"detail": detail, "problems": problems}, status_code=422)

    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(ValidationError, validation)


def check_bearer(settings: Settings, authorization: str | None) -> bool:
    if not settings.api_key:
        return True
    scheme, _, token = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        token.strip().encode(), settings.api_key.encode()
    )


def create_app(settings: Settings | None = None, *, manager: RunManager | None = None) -> FastAPI:
    from codreamer.api.routes import router

    settings = settings or get_settings()
    manager = manager or RunManager(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        manager.start()
        try:
            yield
        finally:
            manager.shutdown()

    app = FastAPI(
        title="CoDreamer API",
        version="0.1.0",
        description="Start learn-loop runs over a knowledge graph, follow them, read their "
        "emails and node scores. Mutating endpoints need `Authorization: Bearer <key>` "
        "when CODREAMER_API_KEY is set.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.manager = manager
    app.state.catalog = Catalog(settings)
    _install_error_handlers(app)
    app.include_router(router)
    origins = [o.strip() for o in settings.cors_origins.split(",") if o.strip()]
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
    )
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    return app


def app_factory() -> FastAPI:
    """For `uvicorn --factory codreamer.api.app:app_factory`."""
    return create_app()
