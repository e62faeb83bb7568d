"""Fixtures for the dashboard's tests: real uvicorn servers on loopback, signed webhooks."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest

from tests.support.server import free_port, serve_in_thread
from web.app import create_app
from web.config import WebSettings
from web.signature import sign_headers

CLOSED_PORT_URL = "http://127.0.0.1:9"  # discard port: nothing listens, connect fails at once


class Dashboard:
    def __init__(self, url: str, settings: WebSettings) -> None:
        self.url = url
        self.settings = settings
        self.http = httpx.Client(base_url=url, timeout=10)

    def state(self) -> dict[str, Any]:
        return self.http.get("/api/state").json()

    def post(
        self,
        payload: dict[str, Any] | bytes | str,
        *,
        secret: str | None = None,
        msg_id: str | None = None,
        timestamp: float | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
        body_bytes = body.encode() if isinstance(body, str) else body
        hdrs = {"Content-Type": "application/json"}
        if secret is not None:
            hdrs |= sign_headers(secret, msg_id or f"msg_{uuid.uuid4().hex}", body_bytes, timestamp)
        elif msg_id is not None:
            hdrs["webhook-id"] = msg_id
        hdrs |= headers or {}
        return self.http.post("/api/final-email", content=body_bytes, headers=hdrs)


@pytest.fixture
def start_dashboard() -> Iterator[Callable[..., Dashboard]]:
    """Start a fresh dashboard (own state) with the given settings; stopped after the test."""
    with ExitStack() as stack:

        def start(**overrides: Any) -> Dashboard:
            overrides.setdefault("api_url", CLOSED_PORT_URL)
            overrides.setdefault("webhook_secret", None)
            settings = WebSettings(**overrides)
            url = stack.enter_context(serve_in_thread(create_app(settings), free_port()))
            dash = Dashboard(url, settings)
            stack.callback(dash.http.close)
            return dash

        yield start


@pytest.fixture
def make_payload() -> Callable[..., dict[str, Any]]:
    def make(**over: Any) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "run_id": "api-20251012-130015-cb9af9",
            "stage": "iteration",
            "iteration": 1,
            "iterations": 3,
            "final_email": {
                "subject": "Quick note",
                "body": "Hello Alex,\n\nA line.\n\nGoal: a call?",
                "citations": ["Customer Job", "Product Feature"],
            },
            "node_scores": {"Customer Job": 0.72, "Product Feature": 0.86},
            "metrics": {"mean": 0.61, "max": 0.83},
        }
        payload |= over
        return payload

    return make
