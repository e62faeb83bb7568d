"""What the dashboard's browser tests share (the browser itself is started by
tests/support/browser.py): the two screen sizes, a layout check that fails on
horizontal overflow or a node off screen, and a scripted backend.

The scripted backend stands in for the API only where a real run cannot be held in
a state long enough to photograph it (a real run passes "dreaming" and "mid-run" in
milliseconds); it speaks the API's protocol (GET /runs/{id} with status, progress,
metrics and the webhook outbox summary).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.support.api import ApiServer, api_server
from tests.support.paths import ARTIFACTS
from tests.support.server import free_port, serve_in_thread
from web.app import create_app
from web.config import WebSettings
from web.signature import sign_headers

PHONE = (390, 844)
DESKTOP = (1280, 900)
SIZES = (PHONE, DESKTOP)


# Everything drawn must lie inside the viewport's width; graph nodes must be big enough
# to read, apart from each other, and their labels inside their boxes. Scrollable
# wrappers (.table-wrap) may hold wider content: that scrolls inside the panel.
_LAYOUT_JS = """() => {
  const W = document.documentElement.clientWidth;
  const out = { W, scrollWidth: document.documentElement.scrollWidth, overflow: [], nodes: [],
                labels: [] };
  for (const e of document.querySelectorAll('body *')) {
    const inSvg = e.closest('svg') && e.tagName.toLowerCase() !== 'svg';
    // A closed <details> keeps its content laid out at the old width, unseen.
    const folded = e.closest('details:not([open]) > :not(summary)');
    if (e.closest('.table-wrap') || inSvg || folded || e.closest('[hidden]')) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -1 || r.right > W + 1) {
      const span = `[${r.left.toFixed(0)}, ${r.right.toFixed(0)}]`;
      out.overflow.push(`${e.tagName}#${e.id}.${e.className} ${span}`);
    }
  }
  for (const g of document.querySelectorAll('svg.graph-svg g.node, .node-item')) {
    const box = g.querySelector('rect.box') || g;
    const r = box.getBoundingClientRect();
    out.nodes.push({ id: g.dataset.nodeId || g.id, left: r.left, right: r.right, top: r.top,
                     bottom: r.bottom, width: r.width, height: r.height });
    for (const t of g.querySelectorAll('text')) {
      const tr = t.getBoundingClientRect();
      const outside = tr.right > r.right + 1 || tr.left < r.left - 1;
      if (outside) out.labels.push(`${g.dataset.nodeId}: ${t.textContent}`);
    }
  }
  return out;
}"""


def check_layout(page: Any, expect_nodes: int | None = None) -> dict[str, Any]:
    info: dict[str, Any] = page.evaluate(_LAYOUT_JS)
    size = page.viewport_size
    where = f"at {size['width']}x{size['height']}"
    assert info["scrollWidth"] <= info["W"], f"horizontal page scroll {where}: {info}"
    assert not info["overflow"], f"elements past the edge {where}: {info['overflow'][:8]}"
    nodes = info["nodes"]
    if expect_nodes is not None:
        assert len(nodes) == expect_nodes, f"{len(nodes)} nodes drawn {where}, not {expect_nodes}"
    for n in nodes:
        assert n["left"] >= -1 and n["right"] <= info["W"] + 1, f"node off screen {where}: {n}"
        assert n["width"] >= 100 and n["height"] >= 24, f"node too small to read {where}: {n}"
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            apart = (
                a["right"] <= b["left"] + 0.5
                or b["right"] <= a["left"] + 0.5
                or a["bottom"] <= b["top"] + 0.5
                or b["bottom"] <= a["top"] + 0.5
            )
            assert apart, f"nodes overlap {where}: {a} {b}"
    assert not info["labels"], f"labels outside their node {where}: {info['labels'][:5]}"
    return info


def resize(page: Any, width: int, height: int) -> None:
    """Resize, then wait until the page has laid itself out again for that size (it
    re-lays out 150 ms after a resize, then records the size on <html>)."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_selector(f"html[data-laid-out='{width}x{height}']", state="attached")


def screens(page: Any, name: str, expect_nodes: int | None = None) -> None:
    """At each size: re-layout, check, and save test-artifacts/screen-<name>-<w>x<h>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in SIZES:
        resize(page, width, height)
        check_layout(page, expect_nodes)
        path = ARTIFACTS / f"screen-{name}-{width}x{height}.png"
        page.screenshot(path=str(path), full_page=True)
    resize(page, *DESKTOP)


# Whether the page follows run `id`: evaluated by the page on each frame, so the wait
# ends on the change itself.
_FOLLOWS_JS = """(id) => {
  const status = document.getElementById('run-status');
  return Boolean(status && status.innerText.startsWith(`Run ${id}`));
}"""


def click_generate(page: Any, timeout_s: float = 60) -> str:
    """Click "Generate email"; the id of the new run, once the page follows it.

    The id is the one the dashboard's own POST /api/generate answered, not read off
    the status line: a page just opened may first show the newest past run there."""

    def is_generate(response: Any) -> bool:
        request = response.request
        return bool(request.method == "POST" and response.url.endswith("/api/generate"))

    with page.expect_response(is_generate, timeout=timeout_s * 1000) as answer:
        page.click("#generate")
    response = answer.value
    data = response.json()
    assert response.ok and data.get("run_id"), f"Generate answered {response.status}: {data}"
    run_id: str = data["run_id"]
    page.wait_for_function(_FOLLOWS_JS, arg=run_id, timeout=timeout_s * 1000)
    return run_id


def webhooks_to(dash_port: int, secret: str | None = None) -> dict[str, str]:
    """The API's settings that send its webhooks to a dashboard on `dash_port` (started
    after it, on a port chosen first), signed with `secret` if given."""
    env = {"FRONTEND_URL": f"http://127.0.0.1:{dash_port}/api/final-email"}
    if secret is not None:
        env["CODREAMER_WEBHOOK_SECRET"] = secret
    return env


@contextmanager
def dashboard_with_api(
    home: Path, secret: str | None = None, **api_env: str
) -> Iterator[tuple[str, ApiServer]]:
    """A real API (`codreamer api`, files under `home`) and a real dashboard in a thread,
    wired both ways: the page talks to the API, the API's webhooks (signed with `secret`)
    come to the dashboard. Yields the dashboard's URL and the API."""
    dash_port = free_port()
    with api_server(home, {**webhooks_to(dash_port, secret), **api_env}) as api:
        settings = WebSettings(api_url=api.url, webhook_secret=secret)
        with serve_in_thread(create_app(settings), dash_port) as url:
            yield url, api


def post_webhook(dash_url: str, secret: str | None, payload: dict[str, Any]) -> httpx.Response:
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json", "X-CoDreamer-Stage": payload["stage"]}
    if secret:
        headers |= sign_headers(secret, f"msg_{uuid.uuid4().hex}", body)
    r = httpx.post(f"{dash_url}/api/final-email", content=body, headers=headers, timeout=10)
    assert r.status_code == 200, r.text
    return r


class ScriptedBackend:
    """The API's run endpoints with a status the test sets."""

    def __init__(self) -> None:
        self.runs: dict[str, dict[str, Any]] = {}
        self.actions: list[tuple[str, str]] = []
        self.next_id = "api-20260101-000000-aaaaaa"
        self.app = self._build()

    def set(self, run_id: str, **fields: Any) -> None:
        run = self.runs.setdefault(
            run_id,
            {
                "run_id": run_id,
                "status": "queued",
                "progress": {},
                "metrics": {},
                "webhooks": {"delivered": 0, "failed": 0, "pending": 0, "final": None},
            },
        )
        run.update(fields)

    def _build(self) -> FastAPI:
        app = FastAPI()

        @app.get("/healthz")
        def healthz() -> dict[str, str]:
            return {"status": "ok"}

        @app.post("/learn-loop")
        async def learn_loop(request: Request) -> JSONResponse:
            await request.json()
            self.set(self.next_id, status="queued")
            return JSONResponse({"run_id": self.next_id, "status": "queued"}, status_code=202)

        @app.get("/runs/{run_id}")
        def run(run_id: str) -> JSONResponse:
            if run_id not in self.runs:
                return JSONResponse({"detail": f"no run {run_id}"}, status_code=404)
            return JSONResponse(self.runs[run_id])

        @app.post("/runs/{run_id}/{action}")
        def act(run_id: str, action: str) -> JSONResponse:
            self.actions.append((run_id, action))
            status = "queued" if action == "resume" else "cancelled"
            self.set(run_id, status=status)
            return JSONResponse({"run_id": run_id, "status": status}, status_code=202)

        @app.get("/runs")
        def runs() -> dict[str, Any]:
            listed = [{**r, "prospects": []} for r in reversed(self.runs.values())]
            return {"runs": listed, "total": len(listed), "next_offset": None}

        @app.get("/scenarios")
        def scenarios() -> dict[str, Any]:
            return {"scenarios": [], "default": None}

        return app


def payload(
    run_id: str,
    stage: str,
    iteration: int,
    iterations: int,
    scores: dict[str, float],
    citations: list[str],
    subject: str,
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "stage": stage,
        "iteration": iteration,
        "iterations": iterations,
        "final_email": {
            "subject": subject,
            "body": "Hi Morgan,\n\nDuring release weeks your new tickets wait about two days "
            "for a first reply, and one in five is passed between teams first.\n\n"
            "Triage Assist routes each ticket to the right queue within seconds.\n\n"
            "Would a 20-minute call next week make sense?\n\nBest regards,\nSam",
            "citations": citations,
        },
        "node_scores": scores,
        "metrics": {
            "mean": 0.5 + 0.01 * iteration,
            "max": 0.7 + 0.005 * iteration,
            "greedy_reward": 0.6 + 0.006 * iteration,
        },
    }
