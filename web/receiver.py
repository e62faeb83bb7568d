"""`POST /api/final-email`: the webhook receiver (DESIGN §7, §8).

Order of checks, cheapest and most fundamental first: a browser page of another
origin (403) or a body not declared JSON (415), size (413), signature and
timestamp when a secret is set (401), repeated webhook-id (200, no change),
payload shape (422 naming the fields), then the store's ordering rules.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from web.context import get_context, read_capped_body
from web.guard import check_write
from web.models import STAGES, WebhookPayload
from web.signature import SignatureError
from web.state import Outcome

router = APIRouter()

STAGE_HEADER = "x-codreamer-stage"


def _errors(exc: ValidationError) -> list[dict[str, Any]]:
    # The sender's own input is not echoed back: it may be large or sensitive.
    return [
        {"loc": ["body", *e["loc"]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False)
    ]


def _unprocessable(errors: list[dict[str, Any]]) -> JSONResponse:
    fields = sorted({".".join(str(p) for p in e["loc"][1:]) or "body" for e in errors})
    return JSONResponse(
        {"detail": errors, "message": "invalid webhook payload: " + ", ".join(fields)},
        status_code=422,
    )


@router.post("/api/final-email")
async def receive_webhook(request: Request) -> JSONResponse:
    ctx = get_context(request)
    # No session needed (the backend is not a browser), but a foreign page must not be
    # able to post results: with no secret set, this is what keeps it out.
    check_write(request, ctx.settings)
    sizes = await ctx.sizes.for_length(request.headers.get("content-length"))
    body = await read_capped_body(request, sizes.webhook_bytes)
    headers = request.headers

    if ctx.verifier is None and ctx.settings.auth_required:
        # Behind a password, an unsigned result could come from anyone who can reach
        # the port (curl sends no Origin): only the backend, which signs, may post.
        return JSONResponse(
            {
                "detail": "this dashboard has a password, so it takes only signed webhooks: "
                "set the same CODREAMER_WEBHOOK_SECRET on the backend and here "
                "(`codreamer serve` sets one for the pair by itself)"
            },
            status_code=401,
        )
    if ctx.verifier is not None:
        try:
            ctx.verifier.verify(body, dict(headers))
        except SignatureError as exc:
            return JSONResponse({"detail": f"webhook signature rejected: {exc}"}, status_code=401)

    webhook_id = headers.get("webhook-id") or None
    if webhook_id is not None and ctx.store.seen(webhook_id):
        return JSONResponse({"status": Outcome.DUPLICATE.value, "webhook_id": webhook_id})

    try:
        payload = WebhookPayload.model_validate_json(body)
    except ValidationError as exc:
        return _unprocessable(_errors(exc))

    header_stage = headers.get(STAGE_HEADER)
    if header_stage is not None:
        if header_stage not in STAGES:
            return _unprocessable(
                [
                    {
                        "loc": ["header", "X-CoDreamer-Stage"],
                        "msg": f"must be one of {', '.join(STAGES)}",
                        "type": "literal_error",
                    }
                ]
            )
        if "stage" not in payload.model_fields_set:
            # The prototype's bodies carry no stage; the header says which it is.
            payload.stage = header_stage  # type: ignore[assignment]
        elif payload.stage != header_stage:
            return _unprocessable(
                [
                    {
                        "loc": ["header", "X-CoDreamer-Stage"],
                        "msg": f"header says {header_stage!r} but body.stage is {payload.stage!r}",
                        "type": "value_error",
                    }
                ]
            )

    outcome = ctx.store.apply(payload, webhook_id)
    return JSONResponse({"status": outcome.value, "run_id": payload.run_id, "stage": payload.stage})
