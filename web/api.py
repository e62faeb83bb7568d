"""The page's own JSON API: state, live events, and the proxy to the backend.

Backend answers (including its 4xx with the field at fault) are passed through
unchanged; only an unreachable backend becomes 503 here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from sse_starlette import EventSourceResponse

from web.backend import BackendAnswer, BackendUnavailable
from web.context import get_context, read_capped_body
from web.mock import mock_data
from web.models import GenerateRequest

router = APIRouter()

# Run ids go into the backend URL path: allow only what the backend makes.
RunId = Annotated[str, Path(pattern=r"^[A-Za-z0-9._-]{1,128}$")]

SSE_PING_S = 15


def _pass_through(answer: BackendAnswer) -> JSONResponse:
    return JSONResponse(answer.data, status_code=answer.status_code)


def _unavailable(exc: BackendUnavailable) -> JSONResponse:
    return JSONResponse({"detail": str(exc), "backend_unreachable": True}, status_code=503)


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/api/state")
async def state(request: Request) -> Response:
    return Response(get_context(request).store.state_json(), media_type="application/json")


@router.get("/api/events")
async def events(request: Request) -> EventSourceResponse:
    store = get_context(request).store

    async def stream() -> AsyncIterator[dict[str, Any]]:
        async for state_json in store.subscribe():
            yield {"event": "state", "data": state_json}

    # Proxies must not buffer the stream, or updates arrive in lumps.
    return EventSourceResponse(stream(), ping=SSE_PING_S, headers={"X-Accel-Buffering": "no"})


@router.get("/api/backend")
async def backend_status(request: Request) -> dict[str, Any]:
    ctx = get_context(request)
    return {"reachable": await ctx.backend.reachable(), "api_url": ctx.backend.base_url}


@router.get("/api/mock")
async def mock() -> dict[str, Any]:
    return mock_data()


@router.post("/api/generate")
async def generate(request: Request) -> JSONResponse:
    ctx = get_context(request)
    body = await read_capped_body(request, ctx.settings.max_body_bytes)
    try:
        req = GenerateRequest.model_validate_json(body)
    except ValidationError as exc:
        errors = [
            {"loc": ["body", *e["loc"]], "msg": e["msg"], "type": e["type"]}
            for e in exc.errors(include_url=False, include_input=False)
        ]
        return JSONResponse({"detail": errors}, status_code=422)
    try:
        answer = await ctx.backend.start_run(req.model_dump(exclude_none=True))
    except BackendUnavailable as exc:
        return _unavailable(exc)
    if answer.ok and isinstance(answer.data, dict) and isinstance(answer.data.get("run_id"), str):
        ctx.store.set_active_run(answer.data["run_id"])
    return _pass_through(answer)


@router.get("/api/run/{run_id}")
async def run_status(request: Request, run_id: RunId) -> JSONResponse:
    try:
        return _pass_through(await get_context(request).backend.run(run_id))
    except BackendUnavailable as exc:
        return _unavailable(exc)


@router.get("/api/graph/{run_id}")
async def run_graph(request: Request, run_id: RunId) -> JSONResponse:
    try:
        return _pass_through(await get_context(request).backend.graph(run_id))
    except BackendUnavailable as exc:
        return _unavailable(exc)


@router.get("/api/scenarios")
async def scenarios(request: Request) -> JSONResponse:
    try:
        return _pass_through(await get_context(request).backend.scenarios())
    except BackendUnavailable as exc:
        return _unavailable(exc)
