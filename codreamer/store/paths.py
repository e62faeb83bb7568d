"""Every on-disk path of a run, and its id (DESIGN §5): computed here and nowhere else."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, overload

from codreamer.errors import InvalidRunIdError, RunNotFoundError, quote

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


class _HasDir(Protocol):
    dir: Path


class InDir:
    """A path in a paths object's directory, read as an attribute: `meta =
    InDir("meta.json")` makes `paths.meta` the path `paths.dir / "meta.json"`."""

    def __init__(self, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> InDir: ...
    @overload
    def __get__(self, obj: _HasDir, owner: type[Any]) -> Path: ...
    def __get__(self, obj: _HasDir | None, owner: type[Any]) -> InDir | Path:
        return self if obj is None else obj.dir / self.name


class IterationFile:
    """A file each iteration writes: `email = IterationFile("email.json")` makes
    `paths.email(k)` the path `paths.dir / f"iter{k}_email.json"`."""

    def __init__(self, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> IterationFile: ...
    @overload
    def __get__(self, obj: _HasDir, owner: type[Any]) -> Callable[[int], Path]: ...
    def __get__(
        self, obj: _HasDir | None, owner: type[Any]
    ) -> IterationFile | Callable[[int], Path]:
        if obj is None:
            return self
        directory, name = obj.dir, self.name
        return lambda k: directory / f"iter{k}_{name}"


class RunPaths:
    """Every file of one run directory (DESIGN §5), computed here and nowhere else."""

    def __init__(self, run_dir: Path) -> None:
        self.dir = Path(run_dir)

    @classmethod
    def for_run(cls, runs_dir: Path, run_id: str) -> RunPaths:
        return cls(Path(runs_dir) / check_run_id(run_id))

    @classmethod
    def existing(cls, runs_dir: Path, run_id: str) -> RunPaths:
        """A run that was created: InvalidRunIdError for a malformed id,
        RunNotFoundError when no run of that id has its meta.json."""
        paths = cls.for_run(runs_dir, run_id)
        if not paths.meta.exists():
            raise RunNotFoundError(run_id)
        return paths

    @property
    def run_id(self) -> str:
        return self.dir.name

    meta = InDir("meta.json")
    graph = InDir("graph.json")
    events = InDir("events.jsonl")
    webhooks = InDir("webhooks.jsonl")
    final_email = InDir("final_email.json")
    eval_report = InDir("eval_report.json")
    # Present while a cancel is pending: the run stops at its next step boundary.
    cancel_request = InDir("cancel")
    # flock-ed by the process executing the run; a free lock means no live process.
    lock = InDir("run.lock")

    step1_groups = IterationFile("step1_groups.jsonl")
    step2_groups = IterationFile("step2_groups.jsonl")
    rewards_metrics = IterationFile("rewards_metrics.json")
    rewards_per_traj = IterationFile("rewards_per_traj.jsonl")
    node_scores = IterationFile("node_scores.json")
    email = IterationFile("email.json")
    policy = IterationFile("policy.json")
    # An LLM policy's prompt version after iteration k (k = 0: the starting one).
    prompt = IterationFile("prompt.json")

    def webhook_claim(self, webhook_id: str) -> Path:
        """Exists (and is flock-ed) only while a sender attempts that event."""
        if not _CLAIM_ID_RE.fullmatch(webhook_id):
            raise ValueError(f"not a webhook id: {webhook_id!r}")
        return self.dir / f".webhook-claim-{webhook_id}"
