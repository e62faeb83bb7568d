"""The dashboard's own credential: a password, exchanged for a signed session cookie.

Auth is on when `CODREAMER_WEB_PASSWORD` is set, and always when the backend has a
key (`CODREAMER_API_KEY`): the dashboard attaches that key to the runs it starts, so
an open dashboard would hand the protected backend to anyone. With auth on and no
password configured, nobody can sign in and the page says which variable to set.

The cookie is `v1.<expiry>.<nonce>.<HMAC-SHA256>`: stateless, so several workers and
a restart accept it; changing the password (or CODREAMER_WEB_SESSION_SECRET) ends
every session. It is HttpOnly and SameSite=Strict, so a foreign page can neither
read it nor send it along with a write.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from web.config import WebSettings
from web.context import get_context, read_capped_body
from web.guard import check_write

COOKIE = "codreamer_session"
_VERSION = "v1"
# Wrong passwords allowed per window before login answers 429 for the rest of it.
_MAX_FAILURES = 10
_FAILURE_WINDOW_S = 60.0
_LOGIN_BODY_LIMIT = 4096
_MAX_CLIENTS_TRACKED = 10_000

router = APIRouter()


def _key(settings: WebSettings) -> bytes:
    base = settings.session_secret or settings.password or ""
    return hmac.new(base.encode(), b"codreamer-web-session-v1", hashlib.sha256).digest()


def _sign(key: bytes, message: str) -> str:
    mac = hmac.new(key, message.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def make_cookie(settings: WebSettings, now: float | None = None) -> str:
    expiry = int((now or time.time()) + settings.session_hours * 3600)
    message = f"{_VERSION}.{expiry}.{secrets.token_urlsafe(12)}"
    return f"{message}.{_sign(_key(settings), message)}"


def valid_cookie(settings: WebSettings, cookie: str | None, now: float | None = None) -> bool:
    if not cookie or not settings.password or len(cookie) > 200:
        return False
    message, _, signature = cookie.rpartition(".")
    parts = message.split(".")
    if len(parts) != 3 or parts[0] != _VERSION or not parts[1].isdigit():
        return False
    if not hmac.compare_digest(signature, _sign(_key(settings), message)):
        return False
    return int(parts[1]) > (now or time.time())


def signed_in(request: Request) -> bool:
    settings = get_context(request).settings
    return not settings.auth_required or valid_cookie(settings, request.cookies.get(COOKIE))


def require_session(request: Request) -> None:
    """Dependency for every route that reads or writes the dashboard's data."""
    if not signed_in(request):
        raise HTTPException(401, "sign in first: this dashboard needs its password")


class _Failures:
    """Counts wrong passwords per client address and window, to slow down guessing.
    Per address: one client's wrong passwords never lock out another. (Behind a
    reverse proxy every client has the proxy's address: rate-limit there instead.)"""

    def __init__(self, max_clients: int = _MAX_CLIENTS_TRACKED) -> None:
        self._lock = threading.Lock()
        # address -> (window start, failures); insertion order = oldest first.
        self._by_client: OrderedDict[str, tuple[float, int]] = OrderedDict()
        self._max_clients = max_clients

    def blocked(self, client: str) -> bool:
        with self._lock:
            start, count = self._by_client.get(client, (0.0, 0))
            if time.monotonic() - start > _FAILURE_WINDOW_S:
                self._by_client.pop(client, None)
                return False
            return count >= _MAX_FAILURES

    def add(self, client: str) -> None:
        with self._lock:
            now = time.monotonic()
            start, count = self._by_client.pop(client, (now, 0))
            if now - start > _FAILURE_WINDOW_S:
                start, count = now, 0
            self._by_client[client] = (start, count + 1)
            while len(self._by_client) > self._max_clients:  # bounded memory
                self._by_client.popitem(last=False)


class LoginBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    password: str = Field(min_length=1, max_length=1024)


def session_info(request: Request) -> dict[str, Any]:
    settings = get_context(request).settings
    return {
        "auth_required": settings.auth_required,
        "signed_in": signed_in(request),
        # Auth forced by the backend's key but no password to sign in with.
        "can_sign_in": bool(settings.password) or not settings.auth_required,
    }


@router.get("/api/session")
async def session(request: Request) -> dict[str, Any]:
    return session_info(request)


@router.post("/api/login")
async def login(request: Request) -> JSONResponse:
    ctx = get_context(request)
    settings = ctx.settings
    check_write(request, settings)
    body = await read_capped_body(request, _LOGIN_BODY_LIMIT)
    if not settings.auth_required:
        return JSONResponse({"signed_in": True, "detail": "this dashboard has no password"})
    if not settings.password:
        raise HTTPException(
            403,
            "the backend has an API key, so this dashboard needs its own password: "
            "set CODREAMER_WEB_PASSWORD where the dashboard runs and restart it",
        )
    failures: _Failures = request.app.state.login_failures
    client = request.client.host if request.client else "unknown"
    if failures.blocked(client):
        raise HTTPException(429, "too many wrong passwords; wait a minute", {"Retry-After": "60"})
    try:
        given = LoginBody.model_validate_json(body).password
    except ValidationError as exc:
        raise HTTPException(422, 'send {"password": "..."}') from exc
    if not hmac.compare_digest(given.encode(), settings.password.encode()):
        failures.add(client)
        raise HTTPException(401, "wrong password")
    resp = JSONResponse({"signed_in": True})
    resp.set_cookie(
        COOKIE,
        make_cookie(settings),
        max_age=int(settings.session_hours * 3600),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )
    return resp


@router.post("/api/logout")
async def logout(request: Request) -> JSONResponse:
    check_write(request, get_context(request).settings)
    resp = JSONResponse({"signed_in": False})
    resp.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return resp


def install(app: Any) -> None:
    app.state.login_failures = _Failures()
    app.include_router(router)
