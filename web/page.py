"""`GET /`: the dashboard page, rendered by Jinja2 with autoescaping.

The server renders the current email so the page is useful before (or without)
JavaScript; `static/app.js` then takes over and keeps it live.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

from web.context import get_context
from web.models import AgentState
from web.session import session_info

router = APIRouter()

TEMPLATES_DIR = Path(__file__).parent / "templates"
_SAFE_CHAR = re.compile(r"[A-Za-z0-9_-]")


def node_anchor(node_id: str) -> str:
    """A stable HTML id for a node; `static/app.js` computes the same one."""
    return "node-" + "".join(c if _SAFE_CHAR.fullmatch(c) else f".{ord(c):x}." for c in node_id)


def paragraphs(body: str) -> list[str]:
    """Blank-line separated paragraphs; single newlines stay (CSS `pre-line`)."""
    return [p.strip("\n") for p in re.split(r"\n\s*\n", body.replace("\r\n", "\n")) if p.strip()]


def _environment() -> Environment:
    # Autoescape everything: webhook content must only ever be shown as text.
    env = Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["node_anchor"] = node_anchor
    env.filters["paragraphs"] = paragraphs
    return env


_ENV = _environment()


@router.get("/", response_class=HTMLResponse)
async def index(request: Request) -> HTMLResponse:
    ctx = get_context(request)
    auth = session_info(request)
    # Signed out, the page is only the sign-in form: no result, no backend address.
    state = ctx.store.snapshot() if auth["signed_in"] else AgentState()
    shown = state.active if state.active_run_id else state.latest
    html = _ENV.get_template("index.html").render(
        state=state,
        shown=shown,
        # `tojson` escapes <, > and & so this data block cannot close its own tag.
        state_data=state.model_dump(mode="json"),
        auth=auth,
        api_url=ctx.settings.api_url if auth["signed_in"] else "",
        signed=ctx.verifier is not None,
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})
