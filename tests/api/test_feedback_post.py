"""What POST /feedback accepts: nothing unknown, every field bounded, times parsed."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from codreamer.judge.feedback import FeedbackEvent, FeedbackPost

OK: dict[str, Any] = {"type": "human_preference", "trajectory_id": "i1-greedy", "value": 0.5}


@pytest.mark.parametrize(
    "change",
    [
        {"extra": 1},
        {"run_id": "api-20250101-000000-abcdef\n"},
        {"run_id": "api-２０250101-000000-abcdef"},
        {"trajectory_id": "a\n"},
        {"trajectory_id": "t" * 201},
        {"email_key": "sha256:" + "a" * 32 + "\n"},
        {"email_key": "md5:abc"},
        {"note": "n" * 2001},
        {"value": float("inf")},
        {"created_at": "2025-13-01T00:00:00Z"},
        {"created_at": "2025-10-12 13:00"},
        {"created_at": "x" * 100},
    ],
)
def test_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        FeedbackPost.model_validate({**OK, **change})


def test_times_are_normalised_to_utc() -> None:
    event = FeedbackPost.model_validate({**OK, "created_at": "2025-10-12T15:00:15.5+02:00"})
    assert event.created_at == "2025-10-12T13:00:15.500000Z"
    assert FeedbackPost.model_validate(OK).created_at.endswith("Z")


def test_rows_already_on_disk_are_read_leniently() -> None:
    """A hand-edited feedback.jsonl row never stops a run: the reader keeps its old rules."""
    row = {**OK, "created_at": "last week", "trajectory_id": "t" * 500}
    assert FeedbackEvent.model_validate(row).score == 0.5
