"""The receiver and the page's API over real HTTP (uvicorn on loopback)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.support.server import serve_in_thread
from tests.web.standin_backend import fake_backend

SECRET = "test-shared-secret"
Start = Callable[..., Any]  # conftest's start_dashboard -> Dashboard
Make = Callable[..., dict[str, Any]]

# The DESIGN appendix's hand-made webhook, byte for byte as curl sends it.
APPENDIX_CURL_BODY = """{
  "run_id": "api-20251012-130015-cb9af9",
  "final_email": {
    "subject": "Quick note: Secure a 20-minute discovery call",
    "body": "Generates high quality synthetic data for LLM pre-training...\\n\\nGoal: Secure a 20-minute discovery call",
    "citations": ["Customer Job","Process for Quality Validation","Human-in-the-Loop Workflow","Product Feature"]
  },
  "node_scores": {
    "Customer Job": 0.7204355040000002,
    "Process for Quality Validation": 0.6764384841744002,
    "Human-in-the-Loop Workflow": 0.6764384841744002,
    "Annotation Guideline Management": 0.6764384841744002,
    "Product Feature": 0.86244
  }
}"""  # noqa: E501


def test_appendix_curl_webhook_accepted_unsigned(start_dashboard: Start) -> None:
    dash = start_dashboard()
    r = dash.post(APPENDIX_CURL_BODY, headers={"X-CoDreamer-Stage": "final"})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "accepted"
    latest = dash.state()["latest"]
    assert latest["run_id"] == "api-20251012-130015-cb9af9"
    assert latest["stage"] == "final"
    assert latest["node_scores"]["Product Feature"] == 0.86244
    assert "\n\nGoal:" in latest["email"]["body"]


def test_signed_webhook_accepted(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard(webhook_secret=SECRET)
    r = dash.post(make_payload(), secret=SECRET, msg_id="msg_ok")
    assert r.status_code == 200, r.text
    assert dash.state()["latest"]["webhook_id"] == "msg_ok"


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"secret": "not-the-secret"}, "No matching signature"),
        ({"secret": SECRET, "timestamp": time.time() - 3600}, "too old"),
        ({"secret": SECRET, "timestamp": time.time() + 3600}, "future"),
        ({}, "Missing required headers"),  # unsigned while a secret is configured
        ({"secret": SECRET, "headers": {"webhook-signature": "v2,abc"}}, "No matching"),
    ],
)
def test_bad_or_stale_signature_is_401(
    start_dashboard: Start, make_payload: Make, kwargs: dict[str, Any], reason: str
) -> None:
    dash = start_dashboard(webhook_secret=SECRET)
    r = dash.post(make_payload(), **kwargs)
    assert r.status_code == 401
    assert reason in r.json()["detail"]
    assert dash.state()["latest"] is None


def test_tampered_body_is_401(start_dashboard: Start, make_payload: Make) -> None:
    from web.signature import sign_headers

    dash = start_dashboard(webhook_secret=SECRET)
    body = json.dumps(make_payload()).encode()
    headers = sign_headers(SECRET, "m1", body) | {"Content-Type": "application/json"}
    tampered = body.replace(b"0.72", b"0.99")
    r = dash.http.post("/api/final-email", content=tampered, headers=headers)
    assert r.status_code == 401


def test_tolerance_setting_applies(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard(webhook_secret=SECRET, webhook_tolerance_s=7200)
    assert dash.post(make_payload(), secret=SECRET, timestamp=time.time() - 3600).status_code == 200


def test_duplicate_webhook_id_is_200_and_no_change(
    start_dashboard: Start, make_payload: Make
) -> None:
    dash = start_dashboard(webhook_secret=SECRET)
    assert dash.post(make_payload(iteration=1), secret=SECRET, msg_id="msg_1").status_code == 200
    before = dash.state()
    retry = dash.post(make_payload(iteration=2), secret=SECRET, msg_id="msg_1")
    assert retry.status_code == 200
    assert retry.json()["status"] == "duplicate"
    assert dash.state() == before


def test_duplicate_id_unsigned_mode(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard()
    dash.post(make_payload(iteration=1), msg_id="m")
    assert dash.post(make_payload(iteration=2), msg_id="m").json()["status"] == "duplicate"
    assert dash.state()["latest"]["iteration"] == 1


def test_out_of_order_retry_never_replaces_newer(
    start_dashboard: Start, make_payload: Make
) -> None:
    dash = start_dashboard(webhook_secret=SECRET)
    dash.post(make_payload(stage="final", iteration=3), secret=SECRET)
    late = dash.post(make_payload(stage="iteration", iteration=2), secret=SECRET)
    assert late.status_code == 200
    assert late.json()["status"] == "stale"
    late_baseline = dash.post(make_payload(stage="baseline", iteration=0), secret=SECRET)
    assert late_baseline.json()["status"] == "stale"
    older_run = make_payload(run_id="older", created_at="2000-01-01T00:00:00Z", iteration=9)
    assert dash.post(older_run, secret=SECRET).json()["status"] == "stale"
    latest = dash.state()["latest"]
    assert (latest["run_id"], latest["stage"], latest["iteration"]) == (
        "api-20251012-130015-cb9af9",
        "final",
        3,
    )


def test_newer_run_replaces(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard()
    dash.post(make_payload(run_id="a", iteration=3, created_at="2025-01-01T00:00:00Z"))
    dash.post(
        make_payload(run_id="b", stage="baseline", iteration=0, created_at="2025-01-02T00:00:00Z")
    )
    assert dash.state()["latest"]["run_id"] == "b"


def test_oversized_body_is_413(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard(max_body_bytes=4096)
    big = make_payload(final_email={"subject": "s", "body": "x" * 5000, "citations": []})
    assert dash.post(big).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap must count while reading
        data = json.dumps(big).encode()
        for i in range(0, len(data), 1000):
            yield data[i : i + 1000]

    r = dash.http.post(
        "/api/final-email", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413
    assert dash.state()["latest"] is None


def test_oversized_checked_before_signature(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard(webhook_secret=SECRET, max_body_bytes=2048)
    r = dash.post(make_payload(final_email={"subject": "s", "body": "x" * 4000}), secret=SECRET)
    assert r.status_code == 413


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"run_id": "r"}, {"final_email", "node_scores"}),
        (
            {"run_id": "r", "final_email": {"subject": 1, "body": "b"}, "node_scores": {}},
            {"final_email.subject"},
        ),
        (
            {
                "run_id": "r",
                "final_email": {"subject": "s", "body": "b"},
                "node_scores": {"a": "x"},
                "iteration": "two",
            },
            {"node_scores.a", "iteration"},
        ),
        (
            {
                "run_id": "r",
                "stage": "later",
                "final_email": {"subject": "s", "body": "b"},
                "node_scores": {},
            },
            {"stage"},
        ),
    ],
)
def test_malformed_is_422_naming_fields(
    start_dashboard: Start, body: dict[str, Any], fields: set[str]
) -> None:
    dash = start_dashboard()
    r = dash.post(body)
    assert r.status_code == 422
    named = {".".join(str(p) for p in e["loc"][1:]) for e in r.json()["detail"]}
    assert fields <= named
    for f in fields:
        assert f in r.json()["message"]


def test_invalid_json_is_422(start_dashboard: Start) -> None:
    dash = start_dashboard()
    r = dash.post(b"{not json")
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "json_invalid"


def test_stage_header(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard()
    body = make_payload()
    del body["stage"]
    r = dash.post(body, headers={"X-CoDreamer-Stage": "baseline"})
    assert r.json()["stage"] == "baseline"
    conflict = dash.post(make_payload(stage="final"), headers={"X-CoDreamer-Stage": "iteration"})
    assert conflict.status_code == 422
    assert "X-CoDreamer-Stage" in conflict.json()["message"]
    bad = dash.post(make_payload(), headers={"X-CoDreamer-Stage": "whenever"})
    assert bad.status_code == 422


def test_page_has_csp_and_escapes_webhook_content(
    start_dashboard: Start, make_payload: Make
) -> None:
    dash = start_dashboard()
    evil = "<script>window.__xss=1</script><img src=x onerror=alert(1)>"
    dash.post(
        make_payload(
            final_email={"subject": evil, "body": evil, "citations": [evil]},
            node_scores={evil: 0.5},
        )
    )
    r = dash.http.get("/")
    assert r.status_code == 200
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "<script>window.__xss" not in r.text
    assert "<img src=x" not in r.text
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in r.text
    # The only script tags are the external module and the JSON data block.
    assert r.text.count("<script") == 2
    assert '<script type="module" src="/static/app.js">' in r.text


def test_static_assets_served(start_dashboard: Start) -> None:
    dash = start_dashboard()
    for name in ("app.js", "graph.js", "routes.js", "chart.js", "dom.js", "style.css"):
        r = dash.http.get(f"/static/{name}")
        assert r.status_code == 200, name
        assert "content-security-policy" in r.headers


def test_sse_streams_state_changes(start_dashboard: Start, make_payload: Make) -> None:
    dash = start_dashboard()
    seen: list[dict[str, Any]] = []
    got_one, got_two = threading.Event(), threading.Event()

    def listen() -> None:
        with httpx.Client(base_url=dash.url, timeout=10) as c, c.stream("GET", "/api/events") as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line.startswith("data:"):
                    seen.append(json.loads(line[5:]))
                    got_one.set()  # subscribed: the state it starts from has arrived
                    if len(seen) >= 2:
                        got_two.set()
                        return

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    assert got_one.wait(10)
    dash.post(make_payload(iteration=2))
    assert got_two.wait(5)
    assert seen[0]["latest"] is None
    assert seen[1]["latest"]["iteration"] == 2


def test_healthz_and_mock(start_dashboard: Start) -> None:
    dash = start_dashboard()
    assert dash.http.get("/healthz").json() == {"status": "ok"}
    mock = dash.http.get("/api/mock").json()
    assert mock["mock"] is True and mock["graph"]["edges"]


def test_backend_down_is_503_and_reported(start_dashboard: Start) -> None:
    dash = start_dashboard()
    assert dash.http.get("/api/backend").json()["reachable"] is False
    assert dash.http.get("/api/run/api-1").status_code == 503
    assert dash.http.get("/api/graph/api-1").status_code == 503
    assert dash.http.get("/api/scenarios").status_code == 503
    r = dash.http.post("/api/generate", json={"iterations": 1, "depth": 2})
    assert r.status_code == 503 and r.json()["backend_unreachable"] is True


def test_run_id_path_is_restricted(start_dashboard: Start) -> None:
    dash = start_dashboard()
    assert dash.http.get("/api/run/..%2F..%2Fetc").status_code in (404, 422)


# ---- against a stand-in backend --------------------------------------------------


def test_proxy_to_backend(start_dashboard: Start) -> None:
    received: list[dict[str, Any]] = []
    with serve_in_thread(fake_backend(received)) as backend_url:
        dash = start_dashboard(api_url=backend_url + "/")
        assert dash.http.get("/api/backend").json()["reachable"] is True
        graph = [{"id": "Customer Job", "content": "c"}]
        r = dash.http.post(
            "/api/generate", json={"iterations": 2, "depth": 3, "graph": graph, "scenario": "s1"}
        )
        assert r.status_code == 202 and r.json()["run_id"] == "api-x"
        assert received[-1] == {"iterations": 2, "depth": 3, "graph": graph, "scenario": "s1"}
        assert dash.state()["active_run_id"] == "api-x"
        assert dash.http.get("/api/run/api-x").json()["progress"]["step"] == "score"
        assert dash.http.get("/api/run/nope").status_code == 404
        assert dash.http.get("/api/graph/api-x").json()["nodes"][0]["id"] == "Customer Job"
        assert dash.http.get("/api/scenarios").json()[0]["id"] == "s1"
        # The backend's own 4xx, naming the field, reaches the page unchanged.
        bad = dash.http.post("/api/generate", json={"iterations": 99, "depth": 1})
        assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "iterations"]
        # Shapes the dashboard itself can tell are wrong never reach the backend.
        n = len(received)
        assert dash.http.post("/api/generate", json={"iterations": 0}).status_code == 422
        assert dash.http.post("/api/generate", json={"bogus": 1}).status_code == 422
        assert len(received) == n
