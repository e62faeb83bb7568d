"""Feedback events and reward mixing (DESIGN §4).

Events are JSONL rows posted through the API (`POST /feedback`) or written by
hand. They attach to an email by `trajectory_id` (an email of a past run) or
by `email_key` (a hash of subject and body, so feedback on an email counts
again whenever any later rollout writes the same email). Only events that
exist count: a trajectory without human or online feedback is rewarded by the
judge alone. Outcomes are never invented.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from codreamer.models import FinalEmail, utc_now_iso

# The value an online outcome is worth as a reward in [0, 1].
OUTCOME_VALUES: dict[str, float] = {
    "bounced": 0.0,
    "unsubscribed": 0.0,
    "ignored": 0.1,
    "opened": 0.4,
    "replied": 0.8,
    "call_booked": 1.0,
}

FeedbackType = Literal["judge_rank", "human_preference", "online_outcome"]
Outcome = Literal["bounced", "unsubscribed", "ignored", "opened", "replied", "call_booked"]


def email_key(email: FinalEmail) -> str:
    blob = (email.subject.strip() + "\n" + email.body.strip()).encode("utf-8")
    return "sha256:" + hashlib.sha256(blob).hexdigest()[:32]


class FeedbackEvent(BaseModel):
    type: FeedbackType
    run_id: str | None = None
    trajectory_id: str | None = None
    email_key: str | None = None
    value: float | None = Field(
        None, ge=0.0, le=1.0, description="Human preference / judge rank as a score in [0, 1]."
    )
    outcome: Outcome | None = None
    note: str | None = Field(None, max_length=2000)
    agent: str | None = None
    created_at: str = Field(default_factory=utc_now_iso)

    @model_validator(mode="after")
    def _check(self) -> FeedbackEvent:
        if not (self.trajectory_id or self.email_key):
            raise ValueError("feedback needs `trajectory_id` or `email_key`")
        if self.type == "online_outcome":
            if self.outcome is None:
                raise ValueError("`online_outcome` feedback needs `outcome`")
        elif self.value is None:
            raise ValueError(f"`{self.type}` feedback needs `value` in [0, 1]")
        return self

    @property
    def score(self) -> float:
        if self.type == "online_outcome" and self.outcome is not None:
            return OUTCOME_VALUES[self.outcome]
        return float(self.value or 0.0)


# What POST /feedback accepts: the same event, with nothing unknown and every field
# bounded (20 posts of a 1.9 MB id once grew feedback.jsonl to 39 MB). Rows already in
# a feedback file are read with FeedbackEvent, so a hand-edited row never stops a run.
RUN_ID_PATTERN = r"^(run|api)-[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$"
EMAIL_KEY_PATTERN = r"^sha256:[0-9a-f]{32}$"
PRINTABLE_PATTERN = r"^[^\x00-\x1f\x7f]+$"


class FeedbackPost(FeedbackEvent):
    model_config = ConfigDict(extra="forbid")  # rust-regex: `$` is the very end

    run_id: str | None = Field(
        None, pattern=RUN_ID_PATTERN, description="run-/api-YYYYMMDD-HHMMSS-xxxxxx."
    )
    trajectory_id: str | None = Field(
        None, min_length=1, max_length=200, pattern=PRINTABLE_PATTERN,
        description="A trajectory of the run, e.g. `i2-greedy` or `i1-g0-t3`.",
    )  # fmt: skip
    email_key: str | None = Field(
        None, pattern=EMAIL_KEY_PATTERN, description="sha256:<32 hex> of subject and body."
    )
    value: float | None = Field(
        None, ge=0.0, le=1.0, allow_inf_nan=False,
        description="Human preference / judge rank as a score in [0, 1].",
    )  # fmt: skip
    note: str | None = Field(None, max_length=2000)
    agent: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$",
        description="The agent whose email it is: its next run learns from it. Default: "
        "the agent of `run_id`'s run, or of the email `email_key` names.",
    )
    created_at: str = Field(
        default_factory=utc_now_iso,
        max_length=40,
        description="ISO 8601 with a time zone (e.g. 2025-10-12T13:00:15Z); default: now.",
    )

    @field_validator("created_at")
    @classmethod
    def _iso_time(cls, v: str) -> str:
        try:
            when = datetime.fromisoformat(v)
        except ValueError:
            raise ValueError("must be an ISO 8601 time, e.g. 2025-10-12T13:00:15Z") from None
        if when.tzinfo is None:
            raise ValueError("needs a time zone, e.g. 2025-10-12T13:00:15Z or +02:00")
        return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


class FeedbackIndex:
    """Feedback by target, averaged per kind: human (preference, judge rank) and online."""

    def __init__(self, events: Iterable[FeedbackEvent] = ()) -> None:
        self._human: dict[str, list[float]] = defaultdict(list)
        self._online: dict[str, list[float]] = defaultdict(list)
        for e in events:
            bucket = self._online if e.type == "online_outcome" else self._human
            keys = [e.email_key]
            if e.trajectory_id:
                # Trajectory ids repeat across runs; with a run id they are unique.
                keys.append(f"{e.run_id}/{e.trajectory_id}" if e.run_id else e.trajectory_id)
            for key in keys:
                if key:
                    bucket[key].append(e.score)

    def __len__(self) -> int:
        return len(self._human) + len(self._online)

    def _mean(self, bucket: dict[str, list[float]], keys: tuple[str, ...]) -> float | None:
        vals = [v for k in keys for v in bucket.get(k, ())]
        return sum(vals) / len(vals) if vals else None

    def mix(
        self,
        judge_score: float,
        run_id: str,
        trajectory_id: str,
        email: FinalEmail,
        alpha: float,
        beta: float,
        gamma: float,
    ) -> tuple[float, dict[str, float]]:
        """The mixed reward and its components (only those that exist)."""
        keys = (f"{run_id}/{trajectory_id}", trajectory_id, email_key(email))
        parts: list[tuple[str, float, float]] = [("judge", alpha, judge_score)]
        human = self._mean(self._human, keys)
        online = self._mean(self._online, keys)
        if human is not None:
            parts.append(("human", beta, human))
        if online is not None:
            parts.append(("online", gamma, online))
        wsum = sum(w for _, w, _ in parts)
        components = {name: value for name, _, value in parts}
        if wsum <= 0:
            return judge_score, components
        return sum(w * v for _, w, v in parts) / wsum, components
