"""Feedback files in the results store (DESIGN §4, §5): never in the tracked data/.

    feedback/<agent>.jsonl   ratings and outcomes of one agent's emails
    feedback/runs.jsonl      feedback on emails of runs that continue no agent

One JSON object a line (a `FeedbackEvent`, codreamer/judge/feedback.py), appended
with a single write, so concurrent posts never interleave.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codreamer.store.agents import check_agent_name
from codreamer.store.files import append_jsonl, iter_jsonl

GENERAL = "runs"


def feedback_dir(results_dir: Path) -> Path:
    return Path(results_dir) / "feedback"


def feedback_file(results_dir: Path, agent: str | None) -> Path:
    """The agent's feedback file, or the one for runs without an agent."""
    name = check_agent_name(agent) if agent else GENERAL
    return feedback_dir(results_dir) / f"{name}.jsonl"


def results_dir_of_run(run_dir: Path) -> Path:
    """The store a run directory lives in (`<store>/runs/<run_id>`)."""
    return Path(run_dir).parent.parent


def append_feedback(results_dir: Path, agent: str | None, row: dict[str, Any]) -> Path:
    path = feedback_file(results_dir, agent)
    append_jsonl(path, row)
    return path


def feedback_rows(results_dir: Path, agent: str | None) -> list[dict[str, Any]]:
    """Every row, a torn last line skipped; rows that are not objects are dropped."""
    return [r for r in iter_jsonl(feedback_file(results_dir, agent)) if isinstance(r, dict)]
