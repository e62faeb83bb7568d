"""HTTP client for the CoDreamer backend API (DESIGN §6), as the dashboard needs it.

The page never calls the backend itself: it calls the dashboard, which calls
here. That keeps the browser same-origin (a simple CSP, no CORS) and lets the
backend live on a private host.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

# A down backend must be noticed quickly, but a busy one given a moment.
_HEALTH_TIMEOUT_S = 1.5
# Health is asked for by every page load; a short cache keeps it off the backend.
_HEALTH_CACHE_S = 2.0


_ORACLE_TIMEOUT_S = 60.0


class BackendUnavailable(Exception):
    """The backend could not be reached or answered something that is not JSON."""


@dataclass(frozen=True)
class BackendAnswer:
    status_code: int
    data: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300


class BackendClient:
    def __init__(self, base_url: str, timeout_s: float = 5.0, api_key: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self._client = httpx.AsyncClient(base_url=self.base_url, timeout=timeout_s, headers=headers)
        self._health: tuple[float, bool] | None = None

    async def aclose(self) -> None:
        await self._client.aclose()

    async def request(
        self, method: str, path: str, json: Any = None, timeout_s: float | None = None
    ) -> BackendAnswer:
        kwargs: dict[str, Any] = {}
        if json is not None:
            kwargs["json"] = json
        if timeout_s is not None:
            kwargs["timeout"] = timeout_s
        try:
            resp = await self._client.request(method, path, **kwargs)
        except httpx.TimeoutException as exc:
            raise BackendUnavailable(
                f"The backend at {self.base_url} did not answer in time. It may be busy; "
                "try again in a moment."
            ) from exc
        except httpx.HTTPError as exc:
            # Plain words, not the client library's exception name (ConnectError…).
            raise BackendUnavailable(
                f"The backend at {self.base_url} cannot be reached. Start it with "
                "`uv run codreamer api` (or both servers with `uv run codreamer serve`), "
                "or point CODREAMER_API_URL at it."
            ) from exc
        try:
            data = resp.json()
        except ValueError as exc:
            raise BackendUnavailable(
                f"backend at {self.base_url} answered {resp.status_code} with non-JSON"
            ) from exc
        return BackendAnswer(resp.status_code, data)

    async def reachable(self) -> bool:
        now = time.monotonic()
        if self._health is not None and now - self._health[0] < _HEALTH_CACHE_S:
            return self._health[1]
        try:
            answer = await self.request("GET", "/healthz", timeout_s=_HEALTH_TIMEOUT_S)
            ok = answer.ok
        except BackendUnavailable:
            ok = False
        self._health = (now, ok)
        return ok

    async def start_run(self, body: dict[str, Any]) -> BackendAnswer:
        return await self.request("POST", "/learn-loop", json=body)

    # Run ids are validated by the routes (web/guard.py); quoting is the second lock.
    async def run(self, run_id: str) -> BackendAnswer:
        return await self.request("GET", f"/runs/{quote(run_id, safe='')}")

    async def feedback(self, body: dict[str, Any]) -> BackendAnswer:
        return await self.request("POST", "/feedback", json=body)

    async def runs(self, limit: int) -> BackendAnswer:
        return await self.request("GET", f"/runs?limit={int(limit)}")

    async def oracle(self, run_id: str) -> BackendAnswer:
        # An exhaustive search on the backend's first call for a run: give it time.
        return await self.request(
            "GET", f"/runs/{quote(run_id, safe='')}/oracle", timeout_s=_ORACLE_TIMEOUT_S
        )

    async def graph(self, run_id: str) -> BackendAnswer:
        return await self.request("GET", f"/runs/{quote(run_id, safe='')}/graph")

    async def run_action(self, run_id: str, action: str) -> BackendAnswer:
        return await self.request("POST", f"/runs/{quote(run_id, safe='')}/{action}", json={})

    async def openapi(self) -> BackendAnswer:
        return await self.request("GET", "/openapi.json")

    async def scenarios(self) -> BackendAnswer:
        return await self.request("GET", "/scenarios")
