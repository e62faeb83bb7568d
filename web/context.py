"""What every route needs, built once per app: settings, store, verifier, backend client."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import HTTPException, Request

from web.backend import BackendClient
from web.config import WebSettings
from web.signature import Verifier
from web.sizes import SizeLimits
from web.state import StateStore


@dataclass
class WebContext:
    settings: WebSettings
    store: StateStore
    backend: BackendClient
    verifier: Verifier | None  # None: no secret configured, unsigned webhooks accepted
    sizes: SizeLimits  # the backend's request and webhook size limits

    @classmethod
    def build(cls, settings: WebSettings) -> WebContext:
        verifier = (
            Verifier(settings.webhook_secret, settings.webhook_tolerance_s)
            if settings.webhook_secret
            else None
        )
        backend = BackendClient(settings.api_url, settings.api_timeout_s, settings.api_key)
        return cls(
            settings=settings,
            store=StateStore(settings.dedupe_capacity),
            backend=backend,
            verifier=verifier,
            sizes=SizeLimits(backend, settings.max_body_bytes),
        )


def get_context(request: Request) -> WebContext:
    ctx: WebContext = request.app.state.ctx
    return ctx


async def read_capped_body(request: Request, limit: int) -> bytes:
    """The request body, or 413 as soon as it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        # Refuse before reading: a huge body costs nothing but this check.
        raise HTTPException(413, f"body larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    # Chunked uploads carry no length, so count while reading too.
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"body larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
