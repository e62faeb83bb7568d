"""Large batches of leads written in the background (DESIGN §6): a job per batch.

A job lives beside its agent (`agents/<name>/jobs/<job_id>/`) with a meta.json,
an events.jsonl and, once done, results.jsonl: laid out as a run's, so its status
and its Server-Sent Events are read the same way. Jobs run one at a time on a thread
of the API process (writing is CPU-bound and quick: a thousand leads in seconds);
one left queued or running by a stopped process is marked interrupted at start-up.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from codreamer.leads import Lead, LeadProblem
from codreamer.loop.write import AgentWriter
from codreamer.models import utc_now_iso
from codreamer.store.agents import AgentPaths, agent_names, job_paths, job_results, new_job_id
from codreamer.store.events import EventLog
from codreamer.store.files import atomic_write_json, atomic_write_jsonl, read_json, read_jsonl
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths
from codreamer.store.status import LIVE_STATUSES

# Batches up to this many leads are answered at once; larger ones become jobs.
SMALL_BATCH = 100
PROGRESS_EVENTS = 20  # about this many progress events a job


class WriteJobs:
    def __init__(self, results_dir: Path) -> None:
        self.results_dir = results_dir
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="write-job")

    def recover(self) -> None:
        """Jobs a stopped process left live will never finish: say so."""
        for name in agent_names(self.results_dir):
            jobs = AgentPaths(self.results_dir, name).jobs
            for d in jobs.iterdir() if jobs.is_dir() else []:
                with contextlib.suppress(OSError, ValueError):
                    paths = RunPaths(d)
                    if read_meta(paths).status in LIVE_STATUSES:
                        update_meta(paths, status="interrupted", finished_at=utc_now_iso())
                        EventLog(paths.events).emit("job_interrupted")

    def submit(self, writer: AgentWriter, leads: list[Lead], problems: list[LeadProblem]) -> str:
        job_id = new_job_id()
        paths = job_paths(writer.agent, job_id)
        paths.dir.mkdir(parents=True)
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
        EventLog(paths.events).emit("job_queued", total=len(leads))
        self._pool.submit(_execute, paths, writer, leads)
        return job_id

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _execute(paths: RunPaths, writer: AgentWriter, leads: list[Lead]) -> None:
    events = EventLog(paths.events)
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
