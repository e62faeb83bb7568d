"""The page's own JSON API: state, live events, and the proxy to the backend.

Every route but `/healthz` follows the dashboard's credential (web/session.py);
every write also passes web/guard.py (own origin, JSON body). Backend answers
(including its 4xx with the field at fault) are passed through unchanged; only an
unreachable backend becomes 503 here.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from sse_starlette import EventSourceResponse

from web.backend import BackendAnswer, BackendUnavailable
from web.context import WebContext, get_context, read_capped_body
from web.guard import check_run_id, check_write
from web.limits import form_limits
from web.mock import mock_data
from web.models import GenerateRequest, RatingRequest
from web.session import require_session

router = APIRouter()
protected = APIRouter(dependencies=[Depends(require_session)])

SSE_PING_S = 15
# The form's bounds change only when the backend is redeployed.
_LIMITS_CACHE_S = 60.0


def _pass_through(answer: BackendAnswer) -> JSONResponse:
    return JSONResponse(answer.data, status_code=answer.status_code)


def _unavailable(exc: BackendUnavailable) -> JSONResponse:
    return JSONResponse({"detail": str(exc), "backend_unreachable": True}, status_code=503)


def _validation_errors(exc: ValidationError) -> JSONResponse:
    errors = [
        {"loc": ["body", *e["loc"]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False)
    ]
    return JSONResponse({"detail": errors}, status_code=422)


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/api/mock")
async def mock() -> dict[str, Any]:
    # Made-up sample content, the same for everyone: nothing to protect.
    return mock_data()


@protected.get("/api/state")
async def state(request: Request) -> Response:
    return Response(get_context(request).store.state_json(), media_type="application/json")


@protected.get("/api/events")
async def events(request: Request) -> EventSourceResponse:
    store = get_context(request).store

    async def stream() -> AsyncIterator[dict[str, Any]]:
        async for state_json in store.subscribe():
            yield {"event": "state", "data": state_json}

    # Proxies must not buffer the stream, or updates arrive in lumps.
    return EventSourceResponse(stream(), ping=SSE_PING_S, headers={"X-Accel-Buffering": "no"})


@protected.get("/api/backend")
async def backend_status(request: Request) -> dict[str, Any]:
    ctx = get_context(request)
    return {"reachable": await ctx.backend.reachable(), "api_url": ctx.backend.base_url}


@protected.get("/api/form")
async def form(request: Request) -> dict[str, Any]:
    """Bounds for the Generate form, from the backend's OpenAPI document when it answers."""
    ctx = get_context(request)
    cached: tuple[float, dict[str, Any]] | None = getattr(request.app.state, "form_limits", None)
    if cached and time.monotonic() - cached[0] < _LIMITS_CACHE_S:
        return cached[1]
    try:
        answer = await ctx.backend.openapi()
        limits = form_limits(answer.data if answer.ok else None)
    except BackendUnavailable:
        limits = form_limits(None)
    if limits["source"] == "backend":
        request.app.state.form_limits = (time.monotonic(), limits)
    return limits


@protected.post("/api/generate")
async def generate(request: Request) -> JSONResponse:
    ctx = get_context(request)
    check_write(request, ctx.settings)
    sizes = await ctx.sizes.for_length(request.headers.get("content-length"))
    body = await read_capped_body(request, sizes.request_bytes)
    try:
        req = GenerateRequest.model_validate_json(body)
    except ValidationError as exc:
        return _validation_errors(exc)
    try:
        answer = await ctx.backend.start_run(req.model_dump(exclude_none=True))
    except BackendUnavailable as exc:
        return _unavailable(exc)
    if answer.ok and isinstance(answer.data, dict) and isinstance(answer.data.get("run_id"), str):
        ctx.store.set_active_run(answer.data["run_id"])
    return _pass_through(answer)


@protected.post("/api/feedback")
async def feedback(request: Request) -> JSONResponse:
    """A rating of an email shown here, recorded by the backend for its agent."""
    ctx = get_context(request)
    check_write(request, ctx.settings)
    body = await read_capped_body(request, 8192)
    try:
        rating = RatingRequest.model_validate_json(body)
    except ValidationError as exc:
        return _validation_errors(exc)
    event = {"type": "human_preference", **rating.model_dump(exclude_none=True)}
    try:
        return _pass_through(await ctx.backend.feedback(event))
    except BackendUnavailable as exc:
        return _unavailable(exc)


async def _run_action(request: Request, run_id: str, action: str) -> JSONResponse:
    ctx: WebContext = get_context(request)
    check_write(request, ctx.settings)
    check_run_id(run_id)
    await read_capped_body(request, 4096)  # the body is `{}`; nothing in it is used
    try:
        answer = await ctx.backend.run_action(run_id, action)
    except BackendUnavailable as exc:
        return _unavailable(exc)
    if answer.ok and action == "resume":
        ctx.store.set_active_run(run_id)
    return _pass_through(answer)


@protected.post("/api/run/{run_id}/resume")
async def resume_run(request: Request, run_id: str) -> JSONResponse:
    return await _run_action(request, run_id, "resume")


@protected.post("/api/run/{run_id}/cancel")
async def cancel_run(request: Request, run_id: str) -> JSONResponse:
    return await _run_action(request, run_id, "cancel")


@protected.get("/api/run/{run_id}")
async def run_status(request: Request, run_id: str) -> JSONResponse:
    check_run_id(run_id)
    try:
        return _pass_through(await get_context(request).backend.run(run_id))
    except BackendUnavailable as exc:
        return _unavailable(exc)


@protected.get("/api/runs")
async def runs(request: Request, limit: Annotated[int, Query(ge=1, le=50)] = 10) -> JSONResponse:
    """The newest runs (prospects, agent, status, final reward, date), for the list."""
    try:
        return _pass_through(await get_context(request).backend.runs(limit))
    except BackendUnavailable as exc:
        return _unavailable(exc)


@protected.get("/api/graph/{run_id}")
async def run_graph(request: Request, run_id: str) -> JSONResponse:
    check_run_id(run_id)
    try:
        return _pass_through(await get_context(request).backend.graph(run_id))
    except BackendUnavailable as exc:
        return _unavailable(exc)


@protected.get("/api/oracle/{run_id}")
async def run_oracle(request: Request, run_id: str) -> JSONResponse:
    check_run_id(run_id)
    try:
        return _pass_through(await get_context(request).backend.oracle(run_id))
    except BackendUnavailable as exc:
        return _unavailable(exc)


@protected.get("/api/scenarios")
async def scenarios(request: Request) -> JSONResponse:
    try:
        return _pass_through(await get_context(request).backend.scenarios())
    except BackendUnavailable as exc:
        return _unavailable(exc)


router.include_router(protected)
