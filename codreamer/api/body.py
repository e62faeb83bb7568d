"""Request bodies: read, checked and parsed before FastAPI sees them.

FastAPI's own JSON reading turns too much into a bare "There was an error
parsing the body" (deep nesting, huge integers, invalid UTF-8) and lets lone
surrogates through to a 500. Routes built with `JSONBodyRoute` instead:

- refuse a POST without a JSON content type (415, with the header to send) or with
  an empty body (422), body-less actions (cancel, resume) included;
- parse with codreamer/safe_json.py (400 naming the fault, line and column);
- refuse valid JSON of the wrong overall shape with a hint (a bare node list for
  POST /learn-loop: wrap it as {"graph": [...]});
- parse and handle at most `max_parallel_large_bodies` large bodies at once, so
  eight hostile 2 MB requests cannot multiply the API's memory by eight.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Coroutine
from email.message import Message
from typing import Any

import anyio
from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel

from codreamer.api.auth import require_key
from codreamer.errors import RequestShapeError, UnsupportedMediaTypeError
from codreamer.safe_json import parse_json

# Bodies above this size take a place at the gate; small ones never wait.
LARGE_BODY_BYTES = 64 * 1024

JSON_HINT = "send the body as JSON with the header `Content-Type: application/json`"


def check_content_type(value: str | None) -> None:
    if not value:
        raise UnsupportedMediaTypeError(f"Content-Type is missing: {JSON_HINT}")
    msg = Message()
    msg["content-type"] = value
    subtype = msg.get_content_subtype()
    is_json = msg.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )
    if not is_json:
        shown = value if len(value) <= 80 else value[:80] + "..."
        raise UnsupportedMediaTypeError(f"Content-Type {shown!r} is not JSON: {JSON_HINT}")
    charset = msg.get_content_charset()
    if charset not in (None, "utf-8", "utf8"):
        raise UnsupportedMediaTypeError(
            f"charset {charset!r} is not supported: JSON bodies are UTF-8 "
            "(`Content-Type: application/json`)"
        )


def model_of(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model a body parameter is typed as (`Model | None` included)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            model = model_of(arg)
            if model is not None:
                return model
    return None


def check_shape(body: Any, model: type[BaseModel] | None) -> None:
    if isinstance(body, dict):
        return
    if isinstance(body, list) and model is not None and "graph" in model.model_fields:
        raise RequestShapeError(
            "body",
            'is a bare list; a graph goes in an object: wrap it as {"graph": [...]} '
            '(other fields such as "iterations" go beside it)',
        )
    kind = "null" if body is None else type(body).__name__.replace("dict", "object")
    raise RequestShapeError("body", f"must be a JSON object, got {kind}")


def _gate(request: Request) -> anyio.Semaphore:
    state = request.app.state
    gate = getattr(state, "body_gate", None)
    if gate is None:  # made on first use, inside the server's event loop
        gate = state.body_gate = anyio.Semaphore(state.settings.max_parallel_large_bodies)
    return gate  # type: ignore[no-any-return]


class JSONBodyRoute(APIRoute):
    """An APIRoute whose JSON body is read and parsed by this module (see above)."""

    body_model: type[BaseModel] | None = None

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        # Called by APIRoute.__init__, once the dependant (and its body) is known.
        handle = super().get_route_handler()
        params = self.dependant.body_params
        if not params and "POST" not in (self.methods or ()):
            return handle
        model = self.body_model = model_of(params[0].field_info.annotation) if params else None

        async def route_handler(request: Request) -> Response:
            require_key(request)  # before the body: without the key nothing is parsed
            # Every POST needs a declared JSON body, an empty one too: a browser sends
            # an empty or text/plain POST cross-site without asking (no CORS preflight),
            # so without this a foreign page could start or cancel runs.
            check_content_type(request.headers.get("content-type"))
            data = await request.body()
            if not data.strip():
                raise RequestShapeError(
                    "body", "is empty: send a JSON object (`{}` for all defaults)"
                )
            if len(data) <= LARGE_BODY_BYTES:
                body = parse_json(data)
                check_shape(body, model)
                request._json = body  # Starlette's cache: FastAPI reads it from here
                return await handle(request)
            async with _gate(request):
                body = await anyio.to_thread.run_sync(parse_json, data)
                check_shape(body, model)
                request._json = body
                del data
                return await handle(request)

        return route_handler
