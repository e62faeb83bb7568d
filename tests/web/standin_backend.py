"""A scripted stand-in for the backend API, speaking its HTTP protocol (DESIGN §6).

Only for what the dashboard's own tests need to observe: every request it got
(method, raw path, body), so a test can prove something was never forwarded.
The flows against the real API are in tests/e2e.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

RUN = "api-20251012-130015-cb9af9"


def fake_backend(
    received: list[dict[str, Any]],
    paths: list[str] | None = None,
    openapi: dict[str, Any] | None = None,
) -> FastAPI:
    app = FastAPI(openapi_url=None)
    seen = paths if paths is not None else []

    @app.middleware("http")
    async def record(request: Request, call_next: Any) -> Any:
        seen.append(f"{request.method} {request.scope.get('raw_path', b'').decode('latin-1')}")
        return await call_next(request)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/openapi.json")
    def schema() -> JSONResponse:
        if openapi is None:
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        return JSONResponse(openapi)

    @app.post("/learn-loop")
    async def learn_loop(request: Request) -> JSONResponse:
        body = await request.json()
        received.append(body)
        if body.get("iterations", 0) > 50:
            return JSONResponse(
                {"detail": [{"loc": ["body", "iterations"], "msg": "too many"}]}, status_code=422
            )
        return JSONResponse(
            {
                "run_id": "api-x",
                "status": "queued",
                "results_path": "r",
                "status_url": "/runs/api-x",
                "events_url": "/runs/api-x/events",
            },
            status_code=202,
        )

    @app.get("/runs/{run_id}")
    def run(run_id: str) -> JSONResponse:
        if run_id not in ("api-x", RUN):
            return JSONResponse({"detail": "unknown run"}, status_code=404)
        return JSONResponse(
            {
                "run_id": run_id,
                "status": "running",
                "progress": {"iteration": 1, "iterations": 2, "step": "score", "fraction": 0.5},
                "metrics": {"iterations": []},
                "latest_email": None,
                "error": None,
            }
        )

    @app.post("/runs/{run_id}/{action}")
    def act(run_id: str, action: str) -> JSONResponse:
        received.append({"action": action, "run_id": run_id})
        status = "queued" if action == "resume" else "cancelled"
        return JSONResponse({"run_id": run_id, "status": status}, status_code=202)

    @app.get("/runs/{run_id}/graph")
    def graph(run_id: str) -> dict[str, Any]:
        return {
            "run_id": run_id,
            "nodes": [{"id": "Customer Job", "content": "c", "score": 0.5}],
            "edges": [],
        }

    @app.get("/scenarios")
    def scenarios() -> list[dict[str, Any]]:
        return [{"id": "s1", "prospect": {"name": "Alex"}, "goal": "a call"}]

    return app
