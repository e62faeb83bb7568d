"""Every on-disk path of a run, and its id (DESIGN §5): computed here and nowhere else."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from pathlib import Path

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
