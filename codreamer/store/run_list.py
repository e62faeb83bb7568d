"""The list of runs in a results directory (DESIGN §5, §6): newest first, by status."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from codreamer.store.meta import RunMeta, read_meta
from codreamer.store.paths import RUN_ID_RE, RunPaths


def run_ids(runs_dir: Path) -> list[str]:
    """Every run directory's id, newest first by the id's timestamp (run- and api-
    ids interleave by time)."""
    if not runs_dir.is_dir():
        return []
    return sorted(
        (d.name for d in runs_dir.iterdir() if RUN_ID_RE.fullmatch(d.name)),
        key=lambda n: (n[4:], n),
        reverse=True,
    )


def iter_runs(runs_dir: Path, status: str | None = None) -> Iterator[tuple[str, RunMeta]]:
    """(directory name, meta) of the readable runs, newest first; a directory whose
    meta.json cannot be read yet (being created) or at all (not a run) is skipped."""
    for name in run_ids(runs_dir):
        try:
            meta = read_meta(RunPaths(runs_dir / name))
        except (OSError, ValueError):
            continue
        if status is None or meta.status == status:
            yield name, meta
