"""The dashboard's own errors say what to do, in plain words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.server import free_port

Start = Callable[..., Any]


def test_a_backend_path_sent_to_the_dashboard_points_at_the_backend(
    start_dashboard: Start,
) -> None:
    api_url = f"http://127.0.0.1:{free_port()}"
    dash = start_dashboard(api_url=api_url)
    r = dash.http.post("/learn-loop", json={})
    assert r.status_code == 404
    [p] = r.json()["problems"]
    assert p["where"] == "POST /learn-loop"
    assert "this is the dashboard, not the API" in p["message"] and api_url in p["message"]
    r = dash.http.get("/nowhere")
    assert r.status_code == 404 and "no such page on the dashboard" in r.text


def test_no_backend_is_said_plainly_without_the_exception_name(start_dashboard: Start) -> None:
    api_url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    dash = start_dashboard(api_url=api_url)
    r = dash.http.post(
        "/api/generate", json={}, headers={"Origin": dash.url, "Content-Type": "application/json"}
    )
    assert r.status_code == 503, r.text
    detail = r.json()["detail"]
    assert detail.startswith(f"The backend at {api_url} cannot be reached")
    assert "uv run codreamer api" in detail and "Error" not in detail
