"""Agents in the results store (DESIGN §2, §5): `agents/<name>/v<k>/`, one directory
per version, written once and never changed.

    agents/<name>/v<k>/version.json    what made it: run config, graph hash, lineage
                                       (runs and feedback), parent version, when
                      policy.json      the policy's parameters (or an LLM's prompt)
                      node_scores.json the node scores it learned
                      graph.json       the graph it was made on (writes default to it)
                      judge_total.json the judge's total refitted to the team, if any
    agents/<name>/lock.json            the run continuing the agent, while it does
    agents/<name>/emails.jsonl         every email written by or for the agent
                                       (email_key, the email, the lead): ratings and
                                       outcomes are joined to emails through it

A version directory is assembled under a temporary name and renamed into place, so
a reader sees a whole version or none. The lock is a file naming its run: a second
run is refused while the first is queued or running; once that run has ended (or its
process died and it was marked interrupted) the lock is stale and is taken over. A run
being resumed takes the lock again before its status turns live (the lock says so, and
holds meanwhile), and only if the agent has not moved on from the version it started
from: a resume never forks an agent.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codreamer.errors import (
    AgentBusyError,
    AgentMovedOnError,
    InvalidAgentNameError,
    JobNotFoundError,
    quote,
)
from codreamer.models import utc_now_iso
from codreamer.store.files import atomic_write_json, iter_jsonl, read_json
from codreamer.store.meta import read_meta
from codreamer.store.paths import InDir, RunPaths
from codreamer.store.status import LIVE_STATUSES

AGENT_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_VERSION_RE = re.compile(r"v([0-9]{1,9})")
JOB_ID_RE = re.compile(r"job-[0-9]{8}-[0-9]{6}-[0-9a-f]{6}")
# A lock whose run has no meta.json yet is being created: held for this long.
CREATING_GRACE_S = 120.0


def check_agent_name(name: object) -> str:
    if not isinstance(name, str) or not AGENT_NAME_RE.fullmatch(name):
        raise InvalidAgentNameError(
            f"invalid agent name {quote(name)}: 1-64 letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


class VersionPaths:
    def __init__(self, directory: Path) -> None:
        self.dir = directory

    manifest = InDir("version.json")
    policy = InDir("policy.json")
    node_scores = InDir("node_scores.json")
    graph = InDir("graph.json")
    judge_total = InDir("judge_total.json")


class AgentPaths:
    """Every file of one agent, computed here and nowhere else."""

    def __init__(self, results_dir: Path, name: str) -> None:
        self.name = check_agent_name(name)
        self.dir = Path(results_dir) / "agents" / name

    lock = InDir("lock.json")
    _guard = InDir(".lock.guard")
    emails = InDir("emails.jsonl")
    jobs = InDir("jobs")

    def version(self, k: int) -> VersionPaths:
        return VersionPaths(self.dir / f"v{k}")

    def exists(self) -> bool:
        return self.latest() is not None

    def versions(self) -> list[int]:
        if not self.dir.is_dir():
            return []
        out = []
        for d in self.dir.iterdir():
            m = _VERSION_RE.fullmatch(d.name)
            if m and (d / "version.json").exists():
                out.append(int(m.group(1)))
        return sorted(out)

    def latest(self) -> int | None:
        vs = self.versions()
        return vs[-1] if vs else None

    def manifest(self, k: int) -> dict[str, Any]:
        return read_json(self.version(k).manifest)  # type: ignore[no-any-return]


def agent_names(results_dir: Path) -> list[str]:
    root = Path(results_dir) / "agents"
    if not root.is_dir():
        return []
    return sorted(d.name for d in root.iterdir() if AGENT_NAME_RE.fullmatch(d.name) and d.is_dir())


# --- versions -------------------------------------------------------------------------


def record_version(
    agent: AgentPaths,
    *,
    manifest: dict[str, Any],
    policy: dict[str, Any],
    node_scores: dict[str, float],
    graph: Any,
    judge_total: dict[str, Any] | None = None,
) -> int:
    """Write the next version (latest + 1) and return its number. Assembled in a
    temporary directory and renamed into place: a reader never sees half a version,
    and two writers can never both take the same number (rename refuses a non-empty
    target; the loser takes the next)."""
    agent.dir.mkdir(parents=True, exist_ok=True)
    tmp = agent.dir / f".v-tmp-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        files = VersionPaths(tmp)
        atomic_write_json(files.policy, policy)
        atomic_write_json(files.node_scores, node_scores)
        atomic_write_json(files.graph, graph)
        if judge_total is not None:
            atomic_write_json(files.judge_total, judge_total)
        for _ in range(1000):
            k = (agent.latest() or 0) + 1
            atomic_write_json(
                files.manifest,
                {"agent": agent.name, "version": k, "created_at": utc_now_iso(), **manifest},
            )
            try:
                os.rename(tmp, agent.version(k).dir)
                return k
            except OSError:  # taken meanwhile (ENOTEMPTY / EEXIST): the next number
                continue
        raise OSError(f"could not number a new version of agent {agent.name}")
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def version_made_by(agent: AgentPaths, run_id: str) -> int | None:
    """The version a run recorded, if it did (a resumed run never records twice)."""
    for k in reversed(agent.versions()):
        if agent.manifest(k).get("run_id") == run_id:
            return k
    return None


# --- the lock -------------------------------------------------------------------------


@contextlib.contextmanager
def _guarded(agent: AgentPaths) -> Iterator[None]:
    # Serialises check-then-write of lock.json between processes of this machine
    # (and of machines whose shared file system honours flock).
    agent.dir.mkdir(parents=True, exist_ok=True)
    with open(agent._guard, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def lock_holder(agent: AgentPaths, runs_dir: Path) -> str | None:
    """The run holding the agent, or None when free or the holder has ended."""
    try:
        lock = read_json(agent.lock)
    except (OSError, ValueError):
        return None
    run_id = str(lock.get("run_id", ""))
    # Being created (no meta.json yet) or resumed (not yet queued again): held a while.
    recent = time.time() - float(lock.get("acquired", 0.0)) < CREATING_GRACE_S
    try:
        status = read_meta(RunPaths.for_run(runs_dir, run_id)).status
    except (OSError, ValueError):
        return run_id if recent else None
    if status in LIVE_STATUSES or (recent and lock.get("resuming")):
        return run_id
    return None


def acquire(agent: AgentPaths, run_id: str, runs_dir: Path) -> None:
    """Take the agent for `run_id`; AgentBusyError naming the run that holds it."""
    with _guarded(agent):
        holder = lock_holder(agent, runs_dir)
        if holder is not None and holder != run_id:
            raise AgentBusyError(agent.name, holder)
        atomic_write_json(
            agent.lock, {"run_id": run_id, "acquired": time.time(), "at": utc_now_iso()}
        )


def take_for_resume(
    agent: AgentPaths, run_id: str, runs_dir: Path, started_from: int | None
) -> None:
    """Take the agent again for a run about to be resumed. AgentBusyError when another
    run holds it; AgentMovedOnError when a version was recorded since the run started
    from `started_from` (unless the run recorded it itself: a resume records once)."""
    with _guarded(agent):
        holder = lock_holder(agent, runs_dir)
        if holder is not None and holder != run_id:
            raise AgentBusyError(agent.name, holder)
        latest = agent.latest()
        if latest is not None and latest != started_from and version_made_by(agent, run_id) is None:
            raise AgentMovedOnError(agent.name, run_id, started_from, latest)
        atomic_write_json(
            agent.lock,
            {"run_id": run_id, "acquired": time.time(), "at": utc_now_iso(), "resuming": True},
        )


def release(agent: AgentPaths, run_id: str) -> None:
    """Free the agent if `run_id` holds it (never another run's lock)."""
    with _guarded(agent):
        try:
            lock = read_json(agent.lock)
        except (OSError, ValueError):
            return
        if lock.get("run_id") == run_id:
            agent.lock.unlink(missing_ok=True)


# --- emails written by or for the agent ----------------------------------------------


def log_emails(agent: AgentPaths, rows: list[dict[str, Any]]) -> None:
    """Remember emails (email_key, email, scenario, lead email, version): ratings and
    outcomes name an email by its key or its lead, and the judge is refitted on them."""
    if not rows:
        return
    agent.dir.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
    # One O_APPEND write for the batch: a concurrent writer's lines never interleave.
    fd = os.open(agent.emails, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def logged_emails(agent: AgentPaths) -> Iterator[dict[str, Any]]:
    yield from iter_jsonl(agent.emails)


# --- write jobs -------------------------------------------------------------------------


def new_job_id() -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"job-{stamp}-{secrets.token_hex(3)}"


def job_paths(agent: AgentPaths, job_id: str) -> RunPaths:
    """A write job's directory: meta.json, events.jsonl and results.jsonl, laid out as
    a run's are, so its status and event stream are read the same way."""
    if not isinstance(job_id, str) or not JOB_ID_RE.fullmatch(job_id):
        raise JobNotFoundError(str(job_id)[:80])
    return RunPaths(agent.jobs / job_id)


def job_results(paths: RunPaths) -> Path:
    return paths.dir / "results.jsonl"
