"""HTTP routes (DESIGN §6). Thin: parse, call service/manager, shape the answer.

Handlers that touch files are plain `def`s, so FastAPI runs them in its thread
pool and the event loop stays free for SSE streams and health checks.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sse_starlette import EventSourceResponse

from codreamer.api import service
from codreamer.api.auth import require_key
from codreamer.api.body import JSONBodyRoute
from codreamer.api.oracle import run_oracle as compute_oracle
from codreamer.api.schemas import (
    ErrorBody,
    FeedbackAccepted,
    Health,
    LearnLoopRequest,
    Limits,
    RunAccepted,
    RunAction,
    RunGraph,
    RunList,
    RunStatus,
    ScenarioList,
)
from codreamer.api.stream import SlotStream, StreamSlots, event_stream, parse_last_event_id
from codreamer.config import Settings
from codreamer.errors import BrokerUnavailableError, StorageError
from codreamer.judge.feedback import FeedbackPost
from codreamer.loop.scenarios import describe, notes
from codreamer.runs.executors import Executor
from codreamer.store.feedback import append_feedback
from codreamer.store.status import RunStatus as RunStatusName
from codreamer.store.storage import check_writable
from codreamer.webhooks.envelope import max_payload_bytes

# Declared for the OpenAPI page (its Authorize button); require_key does the check.
bearer = HTTPBearer(auto_error=False, description="CODREAMER_API_KEY, when the server sets one.")


def key_dependency(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> None:
    require_key(request)


ERRORS: dict[int | str, dict[str, Any]] = {
    s: {"model": ErrorBody} for s in (400, 401, 404, 409, 413, 415, 422, 429, 503, 507)
}

# With CODREAMER_API_KEY set, every route here needs the key (reads too: run lists
# carry prospect names, scenarios carry e-mail addresses). GET /healthz alone is open.
router = APIRouter(route_class=JSONBodyRoute, dependencies=[Depends(key_dependency)])
open_router = APIRouter()


def _settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def _manager(request: Request) -> Executor:
    return request.app.state.manager  # type: ignore[no-any-return]


def _url(request: Request, name: str, run_id: str) -> str:
    """CODREAMER_PUBLIC_URL + the route's path, or the path alone: never built from the
    request's Host, which a client chooses (a rebinding page would get its own name
    echoed back as the place to poll)."""
    path = str(request.app.url_path_for(name, run_id=run_id))
    base = _settings(request).public_url
    return f"{base.rstrip('/')}{path}" if base else path


def _urls(request: Request, run_id: str) -> dict[str, str]:
    return {
        "status_url": _url(request, "get_run", run_id),
        "events_url": _url(request, "run_events", run_id),
        "graph_url": _url(request, "run_graph", run_id),
    }


@router.post(
    "/learn-loop",
    status_code=202,
    response_model=RunAccepted,
    responses=ERRORS,
    summary="Start a learn-loop run",
)
def learn_loop(request: Request, body: LearnLoopRequest | None = None) -> RunAccepted:
    """Validates the whole request (every graph problem at once), then queues the run
    and answers at once; the run goes on in its own process. Every field is
    optional, so is the body: none means all defaults."""
    body = body or LearnLoopRequest()
    app = request.app
    paths, position, config, estimate = service.start_run(
        body, app.state.settings, app.state.catalog, app.state.manager
    )
    return RunAccepted(
        run_id=paths.run_id,
        status="queued",
        queue_position=position,
        results_path=service.store_relative(paths, app.state.settings),
        prospects=describe(config.scenarios) + describe(config.eval_scenarios),
        disk_estimate_mb=round(estimate / 1_000_000, 1),
        agent=config.agent,
        agent_version=config.agent_version,
        notes=notes(config.scenarios, app.state.catalog.scenarios()),
        **_urls(request, paths.run_id),
    )


@router.get("/runs", response_model=RunList, summary="List runs, newest first")
def list_runs(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    status: RunStatusName | None = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> RunList:
    """Newest first, `limit` at a time from `offset`; `total` counts them all and
    `next_offset` is where the next page starts (null on the last)."""
    runs, total = service.list_runs(_settings(request), limit, status, offset)
    for r in runs:
        r["status_url"] = _url(request, "get_run", r["run_id"])
    following = offset + len(runs)
    return RunList.model_validate(
        {
            "runs": runs,
            "count": len(runs),
            "total": total,
            "offset": offset,
            "next_offset": following if following < total else None,
        }
    )


@router.get("/runs/{run_id}", response_model=RunStatus, responses=ERRORS, summary="A run's status")
def get_run(run_id: str, request: Request) -> RunStatus:
    manager = _manager(request)
    return RunStatus.model_validate(service.run_status(manager.paths(run_id), manager))


@router.get(
    "/runs/{run_id}/events",
    responses={**ERRORS, 200: {"content": {"text/event-stream": {}}}},
    summary="The run's events as Server-Sent Events",
)
def run_events(
    run_id: str,
    request: Request,
    last_event_id: Annotated[int | None, Query(ge=0, le=2**31)] = None,
    last_event_id_header: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> EventSourceResponse:
    """Event id = the event's `seq`. Reconnect with `Last-Event-ID` (or
    `?last_event_id=`) to get only later events. Ends after the run's final state.
    Open streams are capped per client and in total (429 with Retry-After beyond)."""
    paths = _manager(request).paths(run_id)
    start = parse_last_event_id(last_event_id_header, last_event_id)
    slots: StreamSlots = request.app.state.stream_slots
    client = request.client.host if request.client else "unknown"
    slots.acquire(client)
    return SlotStream(event_stream(paths, start), ping=15, release=lambda: slots.release(client))


@router.get("/runs/{run_id}/graph", response_model=RunGraph, responses=ERRORS)
def run_graph(run_id: str, request: Request) -> RunGraph:
    """The run's own graph with its current node scores."""
    return RunGraph.model_validate(service.run_graph(_manager(request).paths(run_id)))


@router.get("/runs/{run_id}/oracle", responses=ERRORS, summary="The run's ceiling, when cheap")
def run_oracle(run_id: str, request: Request) -> dict[str, Any]:
    """The oracle's reward (the best the judge can give on this graph by exhaustive
    search) for each training prospect, and their mean; null with the reason when the
    search would pass its cap (codreamer/api/oracle.py)."""

    return compute_oracle(_manager(request).paths(run_id))


@router.post(
    "/runs/{run_id}/cancel",
    status_code=202,
    response_model=RunAction,
    responses=ERRORS,
)
def cancel_run(run_id: str, request: Request) -> RunAction:
    """A queued run is cancelled at once; a running one stops at its next step boundary."""
    status = _manager(request).cancel(run_id)
    return RunAction(run_id=run_id, status=status)


@router.post(
    "/runs/{run_id}/resume",
    status_code=202,
    response_model=RunAction,
    responses=ERRORS,
)
def resume_run(run_id: str, request: Request) -> RunAction:
    """Queue an interrupted, failed or cancelled run again; it goes on from its last
    complete iteration and ends as an uninterrupted run would."""
    position = service.resume_run(run_id, _settings(request), _manager(request))
    return RunAction(run_id=run_id, status="queued", queue_position=position)


@router.post(
    "/feedback",
    status_code=201,
    response_model=FeedbackAccepted,
    responses=ERRORS,
)
def post_feedback(event: FeedbackPost, request: Request) -> FeedbackAccepted:
    """Record a judge rank, human preference or online outcome. It is kept per agent
    in the results store (never in data/): the agent named, or the agent of the run,
    or the agent that wrote the email of `email_key`. Its next run mixes it into the
    reward, and enough ratings refit its judge to the team's taste."""
    settings = _settings(request)
    row = event.model_dump(mode="json", exclude_none=True)
    row["agent"] = service.feedback_agent(event, settings)
    append_feedback(settings.results_dir, row["agent"], row)
    return FeedbackAccepted(event=row)


@router.get("/scenarios", response_model=ScenarioList)
def scenarios(request: Request) -> ScenarioList:
    items = request.app.state.catalog.scenarios()
    return ScenarioList(scenarios=items, default=items[0].id if items else None)


@router.get("/limits", response_model=Limits, summary="Request and webhook size limits")
def limits(request: Request) -> Limits:
    """The dashboard asks this, so it accepts every request this API accepts and every
    webhook its runs send (DESIGN §8)."""
    settings = _settings(request)
    return Limits(
        max_body_bytes=settings.max_body_bytes,
        max_graph_nodes=settings.max_graph_nodes,
        max_webhook_bytes=max_payload_bytes(settings.max_body_bytes, settings.max_graph_nodes),
    )


@open_router.get(
    "/healthz",
    response_model=Health,
    responses={503: {"model": Health, "description": "A part is not ready; `checks` says which"}},
)
def healthz(request: Request) -> JSONResponse:
    """Readiness: the results store is a writable directory and, in celery mode, the
    broker answers. 503 with `checks` naming the part that failed."""
    settings = _settings(request)
    manager = _manager(request)
    checks = {"storage": "ok", "broker": manager.broker_problem() or "ok"}
    try:
        check_writable(settings.results_dir, settings.runs_dir)
    except StorageError as exc:
        checks["storage"] = str(exc)
    active = queued = 0
    if checks["broker"] == "ok":
        try:
            snap = manager.snapshot()
            active, queued = len(snap["active"]), len(snap["queued"])
        except BrokerUnavailableError as exc:
            checks["broker"] = str(exc)
    ready = all(v == "ok" for v in checks.values())
    health = Health(
        status="ok" if ready else "unavailable",
        active_runs=active,
        queued_runs=queued,
        checks=checks,
    )
    headers = None if ready else {"Retry-After": "5"}
    return JSONResponse(health.model_dump(), status_code=200 if ready else 503, headers=headers)
