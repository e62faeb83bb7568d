"""The optional bearer key (CODREAMER_API_KEY): when set, every route but GET /healthz
(and the docs page, which holds no data) needs `Authorization: Bearer <key>`."""

from __future__ import annotations

import hmac

from fastapi import Request

from codreamer.config import Settings
from codreamer.errors import AuthError


def check_bearer(settings: Settings, authorization: str | None) -> bool:
    if not settings.api_key:
        return True
    scheme, _, token = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        token.strip().encode("utf-8", "surrogateescape"), settings.api_key.encode()
    )


def require_key(request: Request) -> None:
    """Checked before a body is read: without the key nothing is parsed."""
    settings: Settings = request.app.state.settings
    if not check_bearer(settings, request.headers.get("authorization")):
        raise AuthError(
            "missing or wrong bearer key: send `Authorization: Bearer <CODREAMER_API_KEY>`"
        )
