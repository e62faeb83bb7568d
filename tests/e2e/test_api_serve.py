"""`codreamer serve`: the API and the dashboard in one command, webhooks wired between."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from api_support import REPO, free_port

pytestmark = pytest.mark.e2e


def test_serve_wires_the_webhook_to_the_dashboard(tmp_path: Path) -> None:
    pytest.importorskip("web.app")
    shutil.copytree(REPO / "data", tmp_path / "data")
    api_port, web_port = free_port(), free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CODREAMER_", "FRONTEND"))},
        "CODREAMER_RESULTS_DIR": str(tmp_path / "results"),
        "CODREAMER_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(REPO),
    }
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 - the child keeps it
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "codreamer.cli",
            "serve",
            "--port",
            str(api_port),
            "--web-port",
            str(web_port),
            "--log-level",
            "warning",
        ],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    api, web = f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{web_port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if (
                    httpx.get(api + "/healthz", timeout=1).status_code == 200
                    and httpx.get(web + "/api/state", timeout=1).status_code == 200
                ):
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.1)
        run_id = httpx.post(
            api + "/learn-loop", json={"iterations": 2, "depth": 2}, timeout=10
        ).json()["run_id"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            latest = httpx.get(web + "/api/state", timeout=5).json().get("latest") or {}
            if latest.get("run_id") == run_id and latest.get("stage") == "final":
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"dashboard never got the final webhook: {latest}")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode is not None
