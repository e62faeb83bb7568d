"""Agents over HTTP (DESIGN §6): list and show them, write with one for a batch of
leads (JSON or a CRM's CSV), follow a large batch's job, import outcomes.

These routes read their bodies themselves: a batch of leads may come as `text/csv`
(never a CORS-safelisted type, so a foreign page cannot send it without a preflight)
or as `application/json`; anything else is a 415.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from sse_starlette import EventSourceResponse

from codreamer.api.routes import ERRORS, key_dependency
from codreamer.api.stream import SlotStream, StreamSlots, event_stream, parse_last_event_id
from codreamer.config import Settings
from codreamer.errors import (
    JobNotFoundError,
    RequestShapeError,
    RunStateError,
    UnsupportedMediaTypeError,
)
from codreamer.leads import Lead, LeadProblem, decode_text, parse_csv, to_csv
from codreamer.leads import parse_json as leads_of_json
from codreamer.loop.write import AgentWriter
from codreamer.models import Sender
from codreamer.runs.agent_views import list_agents, show_agent
from codreamer.runs.feedback_import import import_outcomes
from codreamer.runs.write_jobs import SMALL_BATCH, WriteJobs, job_view
from codreamer.safe_json import parse_json
from codreamer.store.agents import AgentPaths, job_paths

agents_router = APIRouter(dependencies=[Depends(key_dependency)], tags=["agents"])
# What a CSV file is sent as: Windows browsers and tools label .csv files as Excel's.
# None is CORS-safelisted, so a foreign page still cannot send one without a preflight.
CSV_TYPES = ("text/csv", "application/csv", "application/vnd.ms-excel")
BODY_TYPES = ("application/json", *CSV_TYPES)
OutFormat = Annotated[
    Literal["json", "csv"] | None,
    Query(description="csv: the emails as CSV, the input's columns first (also: Accept: text/csv)"),
]
SKIPPED_HEADER_ROWS = 100  # row numbers listed in a CSV answer's header, at most


def _wants_csv(request: Request, out_format: str | None) -> bool:
    if out_format is not None:
        return out_format == "csv"
    accept = (request.headers.get("accept") or "").lower()
    return "text/csv" in accept and "application/json" not in accept


def _csv_answer(
    results: list[dict[str, Any]], skipped_rows: list[int], skipped: int, name: str
) -> Response:
    """The emails as a CRM imports them back: the input's columns, then the email's.
    Rows that were not leads are named in a header (the body has only emails)."""
    from codreamer.loop.write import csv_rows

    shown = ",".join(str(r) for r in skipped_rows[:SKIPPED_HEADER_ROWS])
    headers = {
        "Content-Disposition": f'attachment; filename="{name}-emails.csv"',
        "X-Skipped-Count": str(skipped),
        "X-Skipped-Rows": shown + (",..." if skipped > SKIPPED_HEADER_ROWS else ""),
    }
    return Response(to_csv(csv_rows(results)), media_type="text/csv", headers=headers)


def _settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def _base(request: Request) -> str:
    base = _settings(request).public_url
    return base.rstrip("/") if base else ""


@agents_router.get("/agents", summary="The agents, most recently updated first")
def get_agents(request: Request) -> dict[str, Any]:
    s = _settings(request)
    agents = list_agents(s.results_dir, s.runs_dir)
    return {"agents": agents, "count": len(agents)}


@agents_router.get("/agents/{name}", responses=ERRORS, summary="One agent and its versions")
def get_agent(name: str, request: Request) -> dict[str, Any]:
    s = _settings(request)
    return show_agent(s.results_dir, s.runs_dir, name)


def _content_type(request: Request) -> str:
    value = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if value not in BODY_TYPES:
        raise UnsupportedMediaTypeError(
            f"Content-Type {value or 'missing'!r}: send leads as application/json "
            '(a list of prospects, or {"leads": [...]}) or as text/csv'
        )
    return value


BODY_KEYS = ("leads", "goal", "sender")
MAX_GOAL_CHARS = 500


def _leads(
    ctype: str, data: bytes
) -> tuple[list[Lead], list[LeadProblem], str | None, Sender | None]:
    goal: str | None = None
    sender: Sender | None = None
    try:
        if ctype in CSV_TYPES:
            leads, problems = parse_csv(decode_text(data))
            return leads, problems, None, None
        body = parse_json(data)
        items = body
        if isinstance(body, dict):
            _check_body_keys(body)
            items = body["leads"]
            goal = body.get("goal")
            if goal is not None and (not isinstance(goal, str) or len(goal) > MAX_GOAL_CHARS):
                raise RequestShapeError("goal", f"expected text, at most {MAX_GOAL_CHARS} chars")
            if body.get("sender") is not None:
                sender = Sender.model_validate(body["sender"])
        leads, problems = leads_of_json(items)
    except ValidationError as exc:  # the sender: name the field at fault
        first = exc.errors()[0]
        where = ".".join(["sender", *(str(x) for x in first["loc"])])
        raise RequestShapeError(where, str(first["msg"])[:200]) from None
    except ValueError as exc:
        raise RequestShapeError("body", str(exc).splitlines()[0][:300]) from None
    return leads, problems, goal, sender


def _check_body_keys(body: dict[str, Any]) -> None:
    unknown = [str(k)[:40] for k in body if k not in BODY_KEYS]
    if "leads" not in body or unknown:
        what = f"unknown key(s) {', '.join(map(repr, unknown[:5]))}; " if unknown else ""
        raise RequestShapeError(
            "body", f'{what}expected {{"leads": [...], "goal": "...", "sender": {{...}}}}'
        )


@agents_router.post(
    "/agents/{name}/emails",
    responses={**ERRORS, 202: {"description": "A large batch: a background job"}},
    summary="Write with an agent for a batch of leads (no training)",
)
async def write_emails(
    name: str,
    request: Request,
    goal: Annotated[str | None, Query(max_length=500)] = None,
    out_format: Annotated[OutFormat, Query(alias="format")] = None,
) -> Response:
    """Body: a JSON list of prospects (or `{"leads": [...], "goal": "...", "sender":
    {...}}`), or a CSV export (`Content-Type: text/csv`; First Name, Last Name, Email,
    Title, Company, Industry, Notes whatever their case and spacing; other columns are
    passed through). Up to 100 leads: 200 with every email (subject, body, citations),
    its reward, the judge's reasons and its `email_key` (`?format=csv` or `Accept:
    text/csv`: as CSV, the input's columns first). More: 202 with a job to follow
    (`status_url`, `events_url`). Rows that are not leads are listed by row number."""

    AgentPaths(_settings(request).results_dir, name)  # the name's shape, before the body
    ctype = _content_type(request)
    data = await request.body()
    leads, problems, body_goal, sender = await anyio.to_thread.run_sync(_leads, ctype, data)
    settings = _settings(request)

    def build() -> AgentWriter:
        return AgentWriter(
            settings.results_dir, name, settings, goal=body_goal or goal, sender=sender
        )

    writer = await anyio.to_thread.run_sync(build)
    skipped = [p.as_dict() for p in problems[:100]]
    if len(leads) <= SMALL_BATCH:
        results = await anyio.to_thread.run_sync(writer.write, leads)
        if _wants_csv(request, out_format):
            return _csv_answer(results, [p.row for p in problems], len(problems), name)
        return JSONResponse(
            {
                "agent": name,
                "agent_version": writer.version,
                "count": len(results),
                "emails": results,
                "skipped": len(problems),
                "problems": skipped,
            }
        )
    jobs: WriteJobs = request.app.state.write_jobs
    job_id = jobs.submit(writer, leads, problems)
    base = f"{_base(request)}/agents/{name}/jobs/{job_id}"
    return JSONResponse(
        {
            "job_id": job_id,
            "status": "queued",
            "agent": name,
            "agent_version": writer.version,
            "total": len(leads),
            "skipped": len(problems),
            "problems": skipped,
            "status_url": base,
            "events_url": f"{base}/events",
        },
        status_code=202,
    )


@agents_router.get("/agents/{name}/jobs/{job_id}", responses=ERRORS, summary="A write job")
def get_job(
    name: str,
    job_id: str,
    request: Request,
    out_format: Annotated[OutFormat, Query(alias="format")] = None,
) -> Any:
    """Status and progress; once succeeded, every email (`?format=csv`: as CSV; 409
    before the job has succeeded)."""
    paths = job_paths(AgentPaths(_settings(request).results_dir, name), job_id)
    if not paths.meta.exists():
        raise JobNotFoundError(job_id)
    view = job_view(paths)
    if not _wants_csv(request, out_format):
        return view
    if view["emails"] is None:
        raise RunStateError(f"job {job_id} is {view['status']}: its emails are not written yet")
    rows = [p["row"] for p in view.get("problems") or []]
    return _csv_answer(view["emails"], rows, int(view.get("skipped") or 0), name)


@agents_router.get(
    "/agents/{name}/jobs/{job_id}/events",
    responses={**ERRORS, 200: {"content": {"text/event-stream": {}}}},
    summary="A write job's progress as Server-Sent Events",
)
def job_events(
    name: str,
    job_id: str,
    request: Request,
    last_event_id: Annotated[int | None, Query(ge=0, le=2**31)] = None,
    last_event_id_header: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> EventSourceResponse:
    paths = job_paths(AgentPaths(_settings(request).results_dir, name), job_id)
    if not paths.meta.exists():
        raise JobNotFoundError(job_id)
    start = parse_last_event_id(last_event_id_header, last_event_id)
    slots: StreamSlots = request.app.state.stream_slots
    client = request.client.host if request.client else "unknown"
    slots.acquire(client)
    return SlotStream(event_stream(paths, start), ping=15, release=lambda: slots.release(client))


@agents_router.post(
    "/agents/{name}/outcomes",
    responses=ERRORS,
    summary="Import outcomes of sent emails (CSV)",
)
async def post_outcomes(name: str, request: Request) -> dict[str, Any]:
    """`text/csv` with an `outcome` column (opened, replied, call booked, bounced,
    unsubscribed, ignored) and `email_key` or the lead's `email`. The agent's next run
    mixes them into its rewards. Rows that match nothing are listed by row number."""
    AgentPaths(_settings(request).results_dir, name)
    ctype = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if ctype not in CSV_TYPES:
        raise UnsupportedMediaTypeError(f"Content-Type {ctype or 'missing'!r}: send text/csv")
    data = await request.body()
    results_dir = _settings(request).results_dir
    try:
        text = decode_text(data)
        return await anyio.to_thread.run_sync(import_outcomes, results_dir, name, text)
    except ValueError as exc:
        raise RequestShapeError("body", str(exc)[:300]) from None
