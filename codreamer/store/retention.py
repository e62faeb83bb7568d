"""Retention: which runs are old enough to remove (pure), and removing them (I/O).

A run is removed when it ended (succeeded, failed, cancelled or interrupted) longer
ago than the cut-off; a queued or running run never is, nor one whose process is
still alive. Agents (`results/agents/<name>/v<k>/`) are kept unless asked, and
then every agent keeps its newest version.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from codreamer.store.meta import read_meta
from codreamer.store.paths import RUN_ID_RE, RunPaths

ENDED = frozenset({"succeeded", "failed", "cancelled", "interrupted"})


@dataclass(frozen=True)
class RunAge:
    run_id: str
    status: str
    ended_at: datetime | None  # finished_at, else updated_at


def _parse(stamp: str | None) -> datetime | None:
    if not stamp:
        return None
    try:
        value = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def prunable(runs: list[RunAge], cutoff: datetime) -> list[str]:
    """The ids of runs that ended before `cutoff` (pure: no clock, no files)."""
    return [
        r.run_id
        for r in runs
        if r.status in ENDED and r.ended_at is not None and r.ended_at < cutoff
    ]


@dataclass
class PruneReport:
    removed_runs: list[str]
    removed_agent_versions: list[str]
    freed_bytes: int

    def as_dict(self) -> dict[str, object]:
        return {
            "removed_runs": self.removed_runs,
            "removed_agent_versions": self.removed_agent_versions,
            "freed_mb": round(self.freed_bytes / 1e6, 1),
        }


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _ages(runs_dir: Path) -> list[RunAge]:
    out = []
    for d in sorted(runs_dir.iterdir()) if runs_dir.is_dir() else []:
        if not RUN_ID_RE.fullmatch(d.name):
            continue
        try:
            meta = read_meta(RunPaths.for_run(runs_dir, d.name))
        except (OSError, ValueError):
            continue  # being created, or unreadable: never removed blind
        out.append(RunAge(d.name, meta.status, _parse(meta.finished_at or meta.updated_at)))
    return out


def prune(
    results_dir: Path,
    older_than_days: float,
    *,
    keep_agents: bool = True,
    dry_run: bool = False,
    now: datetime | None = None,
    is_run_alive: Callable[[RunPaths], bool],
) -> PruneReport:
    """Remove runs that ended before the cutoff. `is_run_alive` (from the executor,
    which holds the runs' locks) keeps any run a process still executes."""
    cutoff = (now or datetime.now(UTC)) - timedelta(days=older_than_days)
    runs_dir = results_dir / "runs"
    report = PruneReport([], [], 0)
    for run_id in prunable(_ages(runs_dir), cutoff):
        paths = RunPaths.for_run(runs_dir, run_id)
        if is_run_alive(paths):
            continue
        report.freed_bytes += _size(paths.dir)
        report.removed_runs.append(run_id)
        if not dry_run:
            shutil.rmtree(paths.dir, ignore_errors=True)
    if not keep_agents:
        _prune_agents(results_dir / "agents", cutoff, report, dry_run)
    return report


def _prune_agents(agents_dir: Path, cutoff: datetime, report: PruneReport, dry_run: bool) -> None:
    for agent in sorted(agents_dir.iterdir()) if agents_dir.is_dir() else []:
        versions = sorted(
            (v for v in agent.iterdir() if v.is_dir() and v.name[1:].isdigit()),
            key=lambda v: int(v.name[1:]),
        )
        for version in versions[:-1]:  # the newest version always stays
            mtime = datetime.fromtimestamp(version.stat().st_mtime, UTC)
            if mtime < cutoff:
                report.freed_bytes += _size(version)
                report.removed_agent_versions.append(f"{agent.name}/{version.name}")
                if not dry_run:
                    shutil.rmtree(version, ignore_errors=True)
