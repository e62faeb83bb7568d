"""Typed errors -> HTTP answers, in one place, every answer bounded in size.

Every 4xx body is `{"detail", "problems": [{"where", "message"}], "problem_count"}`:
`problems` holds at most MAX_PROBLEMS_SHOWN entries and `problem_count` says how
many there were, every quoted value is cut to a readable length, and `detail` is
a one-line summary that repeats no list. So an error never grows with a hostile
request (100,000 bad edges get the first 20 and a count).
"""

from __future__ import annotations

import difflib
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from codreamer.api.body import model_of
from codreamer.errors import (
    AgentBusyError,
    AgentGraphError,
    AgentMovedOnError,
    AgentNotFoundError,
    AuthError,
    BrokerUnavailableError,
    ConfigError,
    DataFileError,
    GraphTooLargeError,
    GraphValidationError,
    InsufficientStorageError,
    InvalidAgentNameError,
    InvalidHeaderError,
    InvalidRunIdError,
    JobNotFoundError,
    JSONInputError,
    QueueFullError,
    RequestShapeError,
    RunNotFoundError,
    RunStateError,
    RunTooLargeError,
    ScenarioError,
    StorageError,
    TooManyStreamsError,
    UnsupportedMediaTypeError,
)
from codreamer.store.storage import storage_error

MAX_PROBLEMS_SHOWN = 20
UNION_BRANCHES = frozenset({"str", "Scenario", "ScenarioIn", "int", "list[any]"})
MAX_WHERE_CHARS = 200
MAX_MESSAGE_CHARS = 500

# The one table from typed errors to HTTP statuses. Order matters: subclasses first.
ERROR_STATUS: list[tuple[type[Exception], int]] = [
    (AuthError, 401),
    (JSONInputError, 400),
    (InvalidHeaderError, 400),
    (UnsupportedMediaTypeError, 415),
    (GraphTooLargeError, 413),
    (GraphValidationError, 422),
    (RequestShapeError, 422),
    (ScenarioError, 422),
    (ConfigError, 422),
    (InvalidRunIdError, 422),
    (RunNotFoundError, 404),
    (AgentNotFoundError, 404),
    (JobNotFoundError, 404),
    (AgentBusyError, 409),
    (AgentMovedOnError, 409),
    (AgentGraphError, 409),
    (InvalidAgentNameError, 422),
    (RunStateError, 409),
    (QueueFullError, 429),
    (TooManyStreamsError, 429),
    (DataFileError, 503),  # the server's own data file is broken: not the client's fault
    (StorageError, 503),
    (BrokerUnavailableError, 503),
    (InsufficientStorageError, 507),
    (RunTooLargeError, 422),
]

# What a one-problem error is about, so every 4xx body names its field.
ERROR_WHERE: list[tuple[type[Exception], str]] = [
    (AuthError, "header.Authorization"),
    (JSONInputError, "body"),
    (UnsupportedMediaTypeError, "header.Content-Type"),
    (ScenarioError, "scenario"),
    (ConfigError, "policy/judge"),
    (InvalidRunIdError, "run_id"),
    (RunNotFoundError, "run_id"),
    (AgentNotFoundError, "agent"),
    (JobNotFoundError, "job_id"),
    (AgentBusyError, "agent"),
    (AgentMovedOnError, "agent"),
    (AgentGraphError, "graph"),
    (InvalidAgentNameError, "agent"),
    (RunStateError, "status"),
    (QueueFullError, "queue"),
    (TooManyStreamsError, "events"),
    (DataFileError, "server"),
    (StorageError, "storage"),
    (BrokerUnavailableError, "broker"),
    (InsufficientStorageError, "storage"),
    (RunTooLargeError, "body"),
]


def clip(text: Any, limit: int) -> str:
    """Text safe to answer with: cut to `limit`, and no lone surrogate left to break
    the UTF-8 encoder (a path or query may carry one)."""
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + f"... ({len(s):,} characters)"
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def error_body(detail: str, problems: list[dict[str, str]], total: int | None = None) -> dict:
    shown = [
        {
            "where": clip(p["where"], MAX_WHERE_CHARS),
            "message": clip(p["message"], MAX_MESSAGE_CHARS),
        }
        for p in problems[:MAX_PROBLEMS_SHOWN]
    ]
    count = max(total if total is not None else len(problems), len(shown))
    return {"detail": clip(detail, 1000), "problems": shown, "problem_count": count}


def count_detail(kind: str, total: int) -> str:
    if total > MAX_PROBLEMS_SHOWN:
        return f"{kind}: {total:,} problems; the first {MAX_PROBLEMS_SHOWN} are in `problems`"
    return f"{kind}: {total:,} problems, listed in `problems`"


def typed_error_body(exc: Exception) -> dict[str, Any]:
    problems = [{"where": p.where, "message": p.message} for p in getattr(exc, "problems", [])]
    total = getattr(exc, "total", len(problems))
    if not problems:
        where = next((w for cls, w in ERROR_WHERE if isinstance(exc, cls)), None)
        if where is not None:
            message = str(exc).removeprefix(f"{where}: ")  # the where is said once
            problems = [{"where": where, "message": message}]
            total = 1
    if total > 1:
        kind = "invalid graph" if isinstance(exc, GraphValidationError) else "invalid request"
        detail = count_detail(kind, total)
    else:
        detail = str(exc)
    return error_body(detail, problems, total)


def _model_at(model: Any, path: list[Any]) -> type[BaseModel] | None:
    """The pydantic model found by following field names (list indexes skipped)."""
    for part in path:
        if isinstance(part, int) or part in UNION_BRANCHES:
            continue
        field = model.model_fields.get(part) if model is not None else None
        model = model_of(field.annotation) if field is not None else None
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _suggest(request: Request, loc: list[Any]) -> str:
    """For an unknown body field: the known field it is closest to (`iteration`)."""
    model = _model_at(getattr(request.scope.get("route"), "body_model", None), loc[1:-1])
    if model is None:
        return ""
    key = str(loc[-1])
    close = difflib.get_close_matches(key.lower(), list(model.model_fields), n=1, cutoff=0.6)
    if close:
        return f"; did you mean `{close[0]}`?"
    return f"; known fields: {', '.join(model.model_fields)}"


def _sent_instead(e: Any, loc: list[Any]) -> str:
    """For a missing field: the key the caller sent that looks like it (`nmae`)."""
    sent = e.get("input")
    if not loc or not isinstance(sent, dict):
        return ""
    want = str(loc[-1])
    keys = [str(k) for k in list(sent)[:200]]  # a hostile object is not searched whole
    close = difflib.get_close_matches(want, keys, n=1, cutoff=0.6)
    return f"; you sent {clip(repr(close[0]), 80)}: did you mean `{want}`?" if close else ""


def _problem(request: Request, e: Any) -> dict[str, str]:
    raw_loc = list(e.get("loc", ()))
    if e.get("type") == "json_invalid":  # FastAPI's own parser (not reached normally)
        return {"where": "body", "message": f"not valid JSON: {e.get('msg', '')}"}
    # A field typed as a union (e.g. scenario: id | object) reports each branch by its
    # type name; the names mean nothing to a caller, so they are left out.
    loc = [str(x) for x in raw_loc if str(x) not in UNION_BRANCHES]
    message = str(e.get("msg", "invalid"))
    if e.get("type") == "extra_forbidden" and loc and loc[0] == "body":
        message = f"unknown field {clip(repr(loc[-1]), 80)}{_suggest(request, raw_loc)}"
    elif e.get("type") == "missing":
        message = f"{message}{_sent_instead(e, loc)}"
    return {"where": ".".join(loc) or "body", "message": message}


def _relevant(errors: list[Any]) -> list[Any]:
    """Drop a union branch's "should be a valid string" when the caller plainly sent
    the other branch (an object for `scenario`): the other errors say what is wrong."""

    def wrong_branch(e: Any) -> bool:
        loc = [str(x) for x in e.get("loc", ())]
        return bool(loc) and loc[-1] in UNION_BRANCHES and str(e.get("type", "")).endswith("_type")

    kept = [e for e in errors if not wrong_branch(e)]
    return kept or _fits_no_branch(errors)


def _fits_no_branch(errors: list[Any]) -> list[Any]:
    """Every error is a union branch's type error: the value fits none of them. Said
    once per field, with the usual cause named: several scenarios sent as `scenario`."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for e in errors:
        loc = tuple(x for x in e.get("loc", ()) if str(x) not in UNION_BRANCHES)
        msg = str(e.get("msg", "invalid"))
        if loc not in merged:
            merged[loc] = {"loc": loc, "msg": msg, "type": "union_type", "input": e.get("input")}
        else:
            merged[loc]["msg"] += ", or " + msg.removeprefix("Input should be ")
    for loc, e in merged.items():
        if loc and loc[-1] == "scenario" and isinstance(e["input"], list):
            e["msg"] = (
                "one scenario: an id or a scenario object; several go in `scenarios`, "
                "a list (did you mean `scenarios`?)"
            )
    return list(merged.values())


def not_found_body(method: str, path: str) -> dict[str, Any]:
    """A 404 for a path no route serves: what this server is and where to look, since
    the usual cause is the right request sent to the dashboard's port or the reverse."""
    where = clip(f"{method} {path}", MAX_WHERE_CHARS)
    message = (
        "no such endpoint on the CoDreamer API. The endpoints are listed at /docs "
        "(e.g. POST /learn-loop, GET /runs); the dashboard is a separate server "
        "(port 3000 by default, started by `uv run codreamer serve`)"
    )
    return error_body(f"not found: {where}", [{"where": where, "message": message}])


def install_error_handlers(app: FastAPI) -> None:
    async def http_error(request: Request, exc: Exception) -> Any:
        assert isinstance(exc, StarletteHTTPException)
        # Only the router's own "no route" 404 gets the hint; a route's 404 says more.
        if exc.status_code == 404 and exc.detail == "Not Found":
            body = not_found_body(request.method, request.url.path)
            return JSONResponse(body, status_code=404)
        return await http_exception_handler(request, exc)

    app.add_exception_handler(StarletteHTTPException, http_error)

    async def typed(request: Request, exc: Exception) -> JSONResponse:
        for cls, status in ERROR_STATUS:
            if isinstance(exc, cls):
                headers = None
                if isinstance(exc, (QueueFullError, TooManyStreamsError, BrokerUnavailableError)):
                    headers = {"Retry-After": str(exc.retry_after)}
                elif isinstance(exc, AuthError):
                    headers = {"WWW-Authenticate": "Bearer"}
                return JSONResponse(typed_error_body(exc), status_code=status, headers=headers)
        raise exc

    for cls, _ in ERROR_STATUS:
        app.add_exception_handler(cls, typed)

    async def storage(request: Request, exc: Exception) -> JSONResponse:
        # Any file error the routes did not name themselves: the store's problem (503),
        # said without the server's absolute paths, never a bare 500.
        assert isinstance(exc, OSError)
        results_dir = request.app.state.settings.results_dir
        return await typed(request, storage_error(exc, results_dir))

    app.add_exception_handler(OSError, storage)

    async def validation(request: Request, exc: Exception) -> JSONResponse:
        errors: Any = []
        if isinstance(exc, RequestValidationError):
            errors = exc.errors()
        elif isinstance(exc, ValidationError):
            errors = exc.errors(include_url=False, include_input=False)
        errors = _relevant(list(errors))
        problems = [_problem(request, e) for e in errors[:MAX_PROBLEMS_SHOWN]]
        total = len(errors)
        if total == 1:
            detail = f"{problems[0]['where']}: {problems[0]['message']}"
        else:
            detail = count_detail("invalid request", total)
        return JSONResponse(error_body(detail, problems, total), status_code=422)

    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(ValidationError, validation)
