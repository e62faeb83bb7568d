"""The results store's health and room: is it a writable directory, is there disk for
a run, how much will a run write. Raised as typed errors; the API maps them."""

from __future__ import annotations

import errno
import os
import shutil
import uuid
from pathlib import Path

from codreamer.errors import InsufficientStorageError, RunTooLargeError, StorageError

# Bytes one trajectory of one iteration leaves on disk (groups, rewards, per-trajectory
# rows), measured on the sample graph: 67.5 KB per iteration x group member at depth
# 5 and 12 alike (the baseline included); 70 KB keeps the estimate above what a run
# writes. Plus a fixed part (meta, graph copy, events, emails, webhooks).
BYTES_PER_TRAJECTORY = 70_000
BYTES_PER_RUN = 200_000


def _relative(path: Path, results_dir: Path) -> str:
    try:
        rel = path.relative_to(results_dir).as_posix()
        return "(its root)" if rel == "." else rel
    except ValueError:
        return path.name


def _describe(exc: OSError) -> str:
    if exc.errno == errno.EROFS:
        return "is on a read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "is not writable (permission denied)"
    if exc.errno == errno.ENOTDIR:
        return "is not a directory (a file is in the way)"
    if exc.errno == errno.ENOSPC:
        return "has no space left on its disk"
    return f"cannot be written ({exc.strerror or exc})"


def check_writable(results_dir: Path, runs_dir: Path) -> None:
    """StorageError unless `runs_dir` is (or can be made) a directory we can write in.
    A probe file is written and removed: as root, permission bits say nothing."""
    for path in (results_dir, runs_dir):
        if path.exists() and not path.is_dir():
            raise StorageError(_relative(path, results_dir), "is not a directory")
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
        probe = runs_dir / f".write-probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        with open(probe, "wb") as f:
            f.write(b"ok")
        probe.unlink()
    except OSError as exc:
        raise StorageError(_relative(runs_dir, results_dir), _describe(exc)) from exc


def storage_error(exc: OSError, results_dir: Path) -> StorageError:
    """An OSError met while writing the store, as the typed error the API answers."""
    where = Path(exc.filename) if isinstance(exc.filename, str) else results_dir
    return StorageError(_relative(where, results_dir), _describe(exc))


def estimate_run_bytes(iterations: int, group_size: int, scenarios: int, graph_bytes: int) -> int:
    """What a run is expected to write: its trajectories, and its graph (copied once,
    scored every iteration)."""
    trajectories = iterations * group_size * max(1, scenarios) * BYTES_PER_TRAJECTORY
    return BYTES_PER_RUN + trajectories + graph_bytes * (2 + iterations)


def check_room(runs_dir: Path, estimate: int, max_run_bytes: int, min_free_bytes: int) -> None:
    """RunTooLargeError past the cap; InsufficientStorageError without the disk for it."""
    if estimate > max_run_bytes:
        raise RunTooLargeError(estimate, max_run_bytes)
    free = shutil.disk_usage(runs_dir).free
    if free < estimate + min_free_bytes:
        raise InsufficientStorageError(estimate + min_free_bytes, free)
