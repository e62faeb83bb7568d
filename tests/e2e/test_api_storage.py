"""Storage trouble on a real API server: typed 503s naming the part, /healthz as a
readiness check, a disk estimate in the 202, 422 past the cap, 507 without room."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.support.api import ApiServer, api_server, weave_request

pytestmark = pytest.mark.e2e

SMALL = {"iterations": 1, "depth": 2, "group_size": 2}


def _post(server: ApiServer, body: dict) -> httpx.Response:
    return httpx.post(server.url + "/learn-loop", json=body, timeout=30)


@pytest.mark.parametrize("broken", ["results", "results/runs"])
def test_a_store_that_is_a_file_is_a_503_naming_it(tmp_path: Path, broken: str) -> None:
    target = tmp_path / broken
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("not a directory")
    with api_server(tmp_path) as server:
        health = httpx.get(server.url + "/healthz", timeout=10)
        assert health.status_code == 503
        assert health.json()["status"] == "unavailable"
        assert "not a directory" in health.json()["checks"]["storage"]
        assert health.json()["checks"]["broker"] == "ok"
        for _ in range(5):
            r = _post(server, SMALL)
            assert r.status_code == 503, r.text
            assert r.headers["content-type"] == "application/json"
            assert r.json()["problems"][0]["where"] == "storage"
            assert "not a directory" in r.json()["detail"]
            assert str(tmp_path) not in r.text  # never the server's absolute path
        assert target.read_text() == "not a directory"


def test_healthz_is_ok_when_ready_and_the_202_shows_the_disk_estimate(tmp_path: Path) -> None:
    with api_server(tmp_path) as server:
        health = httpx.get(server.url + "/healthz", timeout=10).json()
        assert health["status"] == "ok"
        assert health["checks"] == {"storage": "ok", "broker": "ok"}
        r = _post(server, {**weave_request(), "iterations": 2, "group_size": 8})
        assert r.status_code == 202, r.text
        run = r.json()
        assert run["disk_estimate_mb"] > 0
        done = server.wait(run["run_id"])
        assert done["status"] == "succeeded"
        written = sum(f.stat().st_size for f in server.run_dir(run["run_id"]).rglob("*"))
        # The estimate covers what the run wrote, without being wildly above it.
        assert written <= run["disk_estimate_mb"] * 1e6 <= 4 * written + 1e6


def test_a_run_over_the_disk_cap_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    with api_server(tmp_path, {"CODREAMER_MAX_RUN_MB": "5"}) as server:
        assert _post(server, SMALL).status_code == 202
        r = _post(server, {"iterations": 10, "group_size": 64})
        assert r.status_code == 422, r.text
        assert "CODREAMER_MAX_RUN_MB" in r.json()["detail"]
        assert len(list((tmp_path / "results" / "runs").iterdir())) == 1


def test_without_free_disk_a_run_gets_507_with_the_space_needed(tmp_path: Path) -> None:
    # A reserve larger than any disk: the free-space check must refuse.
    with api_server(tmp_path, {"CODREAMER_MIN_FREE_MB": str(10**12)}) as server:
        r = _post(server, SMALL)
        assert r.status_code == 507, r.text
        assert "needs about" in r.json()["detail"] and "MB are free" in r.json()["detail"]
        assert not list((tmp_path / "results" / "runs").glob("api-*"))


def test_resuming_a_finished_run_is_409(tmp_path: Path) -> None:
    with api_server(tmp_path) as server:
        run = server.post_run(SMALL)
        assert server.wait(run["run_id"])["status"] == "succeeded"
        r = httpx.post(f"{server.url}/runs/{run['run_id']}/resume", json={}, timeout=10)
        assert r.status_code == 409, r.text
        assert "succeeded" in r.json()["detail"]
