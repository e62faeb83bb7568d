"""Large batches of leads written in the background (DESIGN §6): a job per batch.

A job lives beside its agent (`agents/<name>/jobs/<job_id>/`) with a meta.json,
an events.jsonl and, once done, results.jsonl: laid out as a run's, so its status
and its Server-Sent Events are read the same way. Jobs run one at a time on a thread
of the API process (writing is CPU-bound and quick: a thousand leads in seconds).

The process that accepted a job holds an exclusive `flock` on the job's lock file
from then until the job ends, as a run's process does: at start-up, a job left
queued or running whose lock nobody holds is marked interrupted (its process died),
while another API replica's live job on the same store is left alone.
"""

from __future__ import annotations

import contextlib
import fcntl
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

from codreamer.leads import Lead, LeadProblem
from codreamer.loop.write import AgentWriter
from codreamer.models import utc_now_iso
from codreamer.store.agents import AgentPaths, agent_names, job_paths, job_results, new_job_id
from codreamer.store.events import EventLog
from codreamer.store.files import atomic_write_json, atomic_write_jsonl, read_json, read_jsonl
from codreamer.store.gate import EventGate
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths
from codreamer.store.status import LIVE_STATUSES

# Batches up to this many leads are answered at once; larger ones become jobs.
SMALL_BATCH = 100
PROGRESS_EVENTS = 20  # about this many progress events a job


def _take_lock(paths: RunPaths) -> IO[str]:
    """The job's lock, held by this process until the file is closed (or it dies)."""
    fh = open(paths.lock, "a+", encoding="utf-8")  # noqa: SIM115 - held until the job ends
    fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
    return fh


def _lock_held(paths: RunPaths) -> bool:
    """True while a process holds the job's lock (it is queued or being written)."""
    if not paths.lock.exists():
        return False
    with open(paths.lock, "a+", encoding="utf-8") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        return False


class WriteJobs:
    def __init__(self, results_dir: Path, test_event_gate: Path | None = None) -> None:
        self.results_dir = results_dir
        self.test_event_gate = test_event_gate  # a test hook (codreamer/store/gate.py)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="write-job")

    def recover(self) -> None:
        """Jobs a stopped process left live will never finish: say so."""
        for name in agent_names(self.results_dir):
            jobs = AgentPaths(self.results_dir, name).jobs
            for d in jobs.iterdir() if jobs.is_dir() else []:
                with contextlib.suppress(OSError, ValueError):
                    paths = RunPaths(d)
                    if read_meta(paths).status in LIVE_STATUSES and not _lock_held(paths):
                        update_meta(paths, status="interrupted", finished_at=utc_now_iso())
                        EventLog(paths.events).emit("job_interrupted")

    def submit(self, writer: AgentWriter, leads: list[Lead], problems: list[LeadProblem]) -> str:
        job_id = new_job_id()
        paths = job_paths(writer.agent, job_id)
        paths.dir.mkdir(parents=True)
        lock = _take_lock(paths)
        now = utc_now_iso()
        atomic_write_json(
            paths.meta,
            {
                "run_id": job_id,
                "kind": "write",
                "status": "queued",
                "created_at": now,
                "updated_at": now,
                "agent": writer.agent.name,
                "agent_version": writer.version,
                "progress": {"done": 0, "total": len(leads), "fraction": 0.0},
                "problems": [p.as_dict() for p in problems[:100]],
                "skipped": len(problems),
            },
        )
        events = EventLog(paths.events)
        if self.test_event_gate is not None:
            events.gate = EventGate(self.test_event_gate, job_id)
        events.emit("job_queued", total=len(leads))
        try:
            self._pool.submit(_execute, paths, writer, leads, events, lock)
        except RuntimeError:  # shutting down: the job stays queued, then interrupted
            lock.close()
            raise
        return job_id

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _execute(
    paths: RunPaths, writer: AgentWriter, leads: list[Lead], events: EventLog, lock: IO[str]
) -> None:
    with lock:  # freed once the job has ended, whatever its end
        _write(paths, writer, leads, events)


def _write(paths: RunPaths, writer: AgentWriter, leads: list[Lead], events: EventLog) -> None:
    total = len(leads)
    step = max(1, total // PROGRESS_EVENTS)
    try:
        update_meta(paths, status="running", started_at=utc_now_iso())
        events.emit("job_started", total=total)

        def progress(done: int) -> None:
            if done % step == 0 or done == total:
                fraction = round(done / total, 4) if total else 1.0
                update_meta(paths, progress={"done": done, "total": total, "fraction": fraction})
                events.emit("progress", done=done, total=total, fraction=fraction)

        results = writer.write(leads, progress)
        atomic_write_jsonl(job_results(paths), results)
        mean = sum(r["reward"] for r in results) / len(results) if results else None
        update_meta(paths, status="succeeded", finished_at=utc_now_iso(), mean_reward=mean)
        events.emit("job_finished", written=len(results), mean_reward=mean)
    except Exception as exc:  # a job's failure is its status, never the API's
        message = f"{type(exc).__name__}: {exc}"
        with contextlib.suppress(Exception):
            update_meta(paths, status="failed", finished_at=utc_now_iso(), error=message)
        events.emit("job_failed", error=message)


def job_view(paths: RunPaths) -> dict[str, Any]:
    meta = read_json(paths.meta)
    out = {k: v for k, v in meta.items() if k != "run_id"}
    out["job_id"] = meta["run_id"]
    results = job_results(paths)
    out["emails"] = read_jsonl(results) if results.exists() else None
    return out
