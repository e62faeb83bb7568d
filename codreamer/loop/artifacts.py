"""Every on-disk path of a run, and the atomic writes that keep a killed run readable.

DESIGN §5: a run killed at any instant leaves no half-written file. JSON files
are written to a temporary sibling, flushed, fsynced and renamed over the
target. JSONL files are append-only, one `write` per line; a reader drops a
torn last line (the only damage a kill can do to an append).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import tempfile
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codreamer.errors import InvalidRunIdError, quote

# ASCII digits only (\d also matches full-width ones) and anchored at both ends with
# fullmatch (`$` lets a trailing newline through): run ids become directory names.
RUN_ID_RE = re.compile(r"(run|api)-[0-9]{8}-[0-9]{6}-[0-9a-f]{6}")
_CLAIM_ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,200}")


def new_run_id(prefix: str = "run") -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{prefix}-{stamp}-{secrets.token_hex(3)}"


def check_run_id(run_id: str) -> str:
    """Run ids become directory names: only the documented shape is accepted."""
    if not isinstance(run_id, str) or not RUN_ID_RE.fullmatch(run_id):
        raise InvalidRunIdError(
            f"invalid run id {quote(run_id)}: expected run-YYYYMMDD-HHMMSS-xxxxxx "
            "or api-YYYYMMDD-HHMMSS-xxxxxx (ASCII digits, lower-case hex)"
        )
    return run_id


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=False)


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def atomic_write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    atomic_write_text(path, "".join(_dumps(r) + "\n" for r in rows))


def append_jsonl(path: Path, row: Any) -> None:
    """Append one line with a single write; O_APPEND keeps concurrent appends whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (_dumps(row) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def iter_jsonl(path: Path) -> Iterator[Any]:
    """Rows of a JSONL file; a torn (unterminated) last line is skipped."""
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                return  # torn by a kill mid-append
            line = line.strip()
            if line:
                yield json.loads(line)


def read_jsonl(path: Path) -> list[Any]:
    return list(iter_jsonl(path))


def repair_jsonl(path: Path) -> None:
    """Cut a torn last line so later appends start on a fresh line (used on resume)."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(path, "r+b") as fh:
            fh.truncate(cut)


def remove_stale_temps(directory: Path) -> int:
    """Delete temporary files a killed writer left behind (never a target file)."""
    n = 0
    for tmp in Path(directory).glob(".*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
            n += 1
    return n


class RunPaths:
    """Every file of one run directory (DESIGN §5), computed here and nowhere else."""

    def __init__(self, run_dir: Path) -> None:
        self.dir = Path(run_dir)

    @classmethod
    def for_run(cls, runs_dir: Path, run_id: str) -> RunPaths:
        return cls(Path(runs_dir) / check_run_id(run_id))

    @property
    def run_id(self) -> str:
        return self.dir.name

    @property
    def meta(self) -> Path:
        return self.dir / "meta.json"

    @property
    def graph(self) -> Path:
        return self.dir / "graph.json"

    @property
    def events(self) -> Path:
        return self.dir / "events.jsonl"

    @property
    def webhooks(self) -> Path:
        return self.dir / "webhooks.jsonl"

    def webhook_claim(self, webhook_id: str) -> Path:
        """Exists (and is flock-ed) only while a sender attempts that event."""
        if not _CLAIM_ID_RE.fullmatch(webhook_id):
            raise ValueError(f"not a webhook id: {webhook_id!r}")
        return self.dir / f".webhook-claim-{webhook_id}"

    @property
    def final_email(self) -> Path:
        return self.dir / "final_email.json"

    @property
    def cancel_request(self) -> Path:
        """Present while a cancel is pending: the run stops at its next step boundary."""
        return self.dir / "cancel"

    @property
    def lock(self) -> Path:
        """flock-ed by the process executing the run; a free lock means no live process."""
        return self.dir / "run.lock"

    @property
    def eval_report(self) -> Path:
        return self.dir / "eval_report.json"

    def step1_groups(self, k: int) -> Path:
        return self.dir / f"iter{k}_step1_groups.jsonl"

    def step2_groups(self, k: int) -> Path:
        return self.dir / f"iter{k}_step2_groups.jsonl"

    def rewards_metrics(self, k: int) -> Path:
        return self.dir / f"iter{k}_rewards_metrics.json"

    def rewards_per_traj(self, k: int) -> Path:
        return self.dir / f"iter{k}_rewards_per_traj.jsonl"

    def node_scores(self, k: int) -> Path:
        return self.dir / f"iter{k}_node_scores.json"

    def email(self, k: int) -> Path:
        return self.dir / f"iter{k}_email.json"

    def policy(self, k: int) -> Path:
        return self.dir / f"iter{k}_policy.json"

    def prompt(self, k: int) -> Path:
        """An LLM policy's prompt version after iteration k (k = 0: the starting one)."""
        return self.dir / f"iter{k}_prompt.json"
