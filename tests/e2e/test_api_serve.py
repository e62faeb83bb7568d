"""`codreamer serve`: the API and the dashboard in one command, webhooks wired between."""

from __future__ import annotations

import json
import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from codreamer.api.service import webhook_summary
from codreamer.store.paths import RunPaths
from tests.support.env import clean_env
from tests.support.paths import DATA
from tests.support.server import ServerProcess, free_port, uvicorn_command, uvicorn_ready

pytestmark = pytest.mark.e2e


@contextmanager
def serve(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """`codreamer serve` on free ports; yields the API's and the dashboard's URLs once
    both have started."""
    pytest.importorskip("web.app")
    shutil.copytree(DATA, tmp_path / "data")
    api_port, web_port = free_port(), free_port()
    server = ServerProcess(
        uvicorn_command(
            "codreamer.cli", "serve", "--port", str(api_port), "--web-port", str(web_port),
            "--log-level", "warning",
        ),
        cwd=tmp_path,
        env=clean_env(
            CODREAMER_RESULTS_DIR=str(tmp_path / "results"),
            CODREAMER_DATA_DIR=str(tmp_path / "data"),
        ),
        log=tmp_path / "serve.log",
        ready=[uvicorn_ready(api_port), uvicorn_ready(web_port)],
    )  # fmt: skip
    server.start(timeout=30)
    try:
        yield f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{web_port}"
    finally:
        server.stop(signal.SIGINT)  # Ctrl-C, as a user stops it


def _final_on_dashboard(web: str, run_id: str, timeout: float = 60) -> dict:
    """Follow the dashboard's own event stream (its state now, then after every
    change) until it shows the run's final email."""
    deadline = time.monotonic() + timeout
    latest: dict = {}
    with httpx.stream("GET", web + "/api/events", timeout=timeout) as stream:
        for line in stream.iter_lines():
            if line.startswith("data:"):
                latest = json.loads(line[5:]).get("latest") or {}
                if latest.get("run_id") == run_id and latest.get("stage") == "final":
                    return latest
            if time.monotonic() > deadline:  # pings keep the stream alive: stop here
                break
    raise AssertionError(f"dashboard never got the final webhook: {str(latest)[:300]}")


def test_serve_wires_the_webhook_to_the_dashboard(tmp_path: Path) -> None:
    with serve(tmp_path) as (api, web):
        run_id = httpx.post(
            api + "/learn-loop", json={"iterations": 2, "depth": 2}, timeout=10
        ).json()["run_id"]
        _final_on_dashboard(web, run_id)


def test_the_dashboard_takes_every_request_and_webhook_the_api_does(tmp_path: Path) -> None:
    """One set of limits: a 1.2 MB graph whose node id is 600,000 characters is over the
    dashboard's own 1 MB floor. The dashboard asks the API's GET /limits, so its
    Generate forwards the run and its receiver takes all of the run's webhooks."""
    long_id = "L" * 600_000
    graph = [
        {"id": "Customer Job", "content": "Validates synthetic data quality.",
         "edge": [{"target_id": long_id, "relationship": "needs"}]},
        {"id": long_id, "content": "A step with a very long name.",
         "edge": [{"target_id": "Product Feature", "relationship": "is solved by"}]},
        {"id": "Product Feature", "content": "An integrated feedback system.", "edge": []},
    ]  # fmt: skip
    body = {"graph": graph, "iterations": 2, "depth": 3, "group_size": 2}
    with serve(tmp_path) as (api, web):
        limits = httpx.get(api + "/limits", timeout=10).json()
        assert limits["max_webhook_bytes"] >= 3 * limits["max_body_bytes"]
        started = httpx.post(web + "/api/generate", json=body, timeout=30)
        assert started.status_code == 202, started.text[:300]
        run_id = started.json()["run_id"]
        latest = _final_on_dashboard(web, run_id)
        assert latest["node_scores"].keys() == {"Customer Job", long_id, "Product Feature"}
        # Over the API's own limit, the dashboard refuses as the API would.
        too_big = {**body, "pad": "x" * (limits["max_body_bytes"] + 1)}
        assert httpx.post(web + "/api/generate", json=too_big, timeout=30).status_code == 413
    # Read once the sender has stopped: the dashboard shows an event before it answers,
    # and the API writes `delivered` after reading the answer.
    hooks = webhook_summary(RunPaths.for_run(tmp_path / "results" / "runs", run_id))
    assert hooks["delivered"] == 4 and hooks["failed"] == 0 and hooks["pending"] == 0, hooks
