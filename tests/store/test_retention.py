"""`codreamer runs prune` on a real results store made by real runs of the CLI."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths
from codreamer.store.retention import RunAge, prunable
from tests.support.cli import run_cli

NOW = datetime(2026, 1, 10, tzinfo=UTC)


def test_only_runs_that_ended_before_the_cutoff_are_prunable() -> None:
    old, new = NOW - timedelta(days=10), NOW - timedelta(days=1)
    runs = [
        RunAge("a", "succeeded", old),
        RunAge("b", "failed", new),
        RunAge("c", "running", old),
        RunAge("d", "queued", old),
        RunAge("e", "interrupted", old),
        RunAge("f", "cancelled", None),
    ]
    assert prunable(runs, NOW - timedelta(days=7)) == ["a", "e"]


def test_prune_removes_old_runs_and_keeps_agents_unless_asked(tmp_path: Path) -> None:
    ids = []
    for _ in range(3):
        r = run_cli(
            "learn-loop",
            "1",
            "2",
            "--group-size",
            "2",
            "--json",
            cwd=tmp_path,
            CODREAMER_RESULTS_DIR=str(tmp_path / "results"),
        )
        assert r.returncode == 0, r.stderr[-2000:]
        ids.append(json.loads(r.stdout)["run_id"])
    runs_dir = tmp_path / "results" / "runs"
    ten_days_ago = (datetime.now(UTC) - timedelta(days=10)).isoformat()
    update_meta(RunPaths.for_run(runs_dir, ids[0]), finished_at=ten_days_ago)
    # An old run still marked running (its process may be alive somewhere): kept.
    update_meta(RunPaths.for_run(runs_dir, ids[1]), status="running", updated_at=ten_days_ago)
    agent = tmp_path / "results" / "agents" / "sales"
    for v in ("v1", "v2"):
        (agent / v).mkdir(parents=True)
        (agent / v / "policy.json").write_text("{}")
        os.utime(agent / v, (0, 0))

    r = run_cli(
        "runs",
        "prune",
        "--older-than",
        "7",
        "--dry-run",
        cwd=tmp_path,
        CODREAMER_RESULTS_DIR=str(tmp_path / "results"),
    )
    assert json.loads(r.stdout)["removed_runs"] == [ids[0]]
    assert (runs_dir / ids[0]).is_dir()

    r = run_cli(
        "runs",
        "prune",
        "--older-than",
        "7",
        cwd=tmp_path,
        CODREAMER_RESULTS_DIR=str(tmp_path / "results"),
    )
    report = json.loads(r.stdout)
    assert report["removed_runs"] == [ids[0]] and report["removed_agent_versions"] == []
    assert not (runs_dir / ids[0]).exists()
    assert read_meta(RunPaths.for_run(runs_dir, ids[1])).status == "running"
    assert (runs_dir / ids[2]).is_dir()
    assert (agent / "v1").is_dir() and (agent / "v2").is_dir()

    r = run_cli(
        "runs",
        "prune",
        "--older-than",
        "7",
        "--prune-agents",
        cwd=tmp_path,
        CODREAMER_RESULTS_DIR=str(tmp_path / "results"),
    )
    assert json.loads(r.stdout)["removed_agent_versions"] == ["sales/v1"]
    assert not (agent / "v1").exists() and (agent / "v2").is_dir()  # newest kept


def test_prune_days_default_to_the_retention_setting(tmp_path: Path) -> None:
    r = run_cli("runs", "prune", cwd=tmp_path, CODREAMER_RESULTS_DIR=str(tmp_path / "results"))
    assert r.returncode == 2 and "CODREAMER_RETENTION_DAYS" in r.stderr
    r = run_cli(
        "runs",
        "prune",
        CODREAMER_RETENTION_DAYS="30",
        cwd=tmp_path,
        CODREAMER_RESULTS_DIR=str(tmp_path / "results"),
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["older_than_days"] == 30
