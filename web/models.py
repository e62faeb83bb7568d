"""Data models: the webhook payload (DESIGN §7) and what the dashboard keeps of it.

`WebhookPayload` must accept whatever `codreamer.models.WebhookPayload` sends and
vice versa; a contract test checks both directions, so keep the field names.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Stage = Literal["baseline", "iteration", "final"]
STAGES: tuple[str, ...] = ("baseline", "iteration", "final")
# Within one run and one iteration, a later stage is the newer result.
STAGE_RANK: dict[str, int] = {"baseline": 0, "iteration": 1, "final": 2}


def utc_now() -> datetime:
    return datetime.now(UTC)


def order_key(stage: str, iteration: int | None) -> tuple[float, int]:
    """(iteration, stage rank) inside one run: a lower key is an older result."""
    if iteration is not None:
        it: float = iteration
    elif stage == "final":
        # A final event without an iteration number comes after every iteration.
        it = float("inf")
    else:
        it = 0.0  # the baseline is iteration 0
    return (it, STAGE_RANK[stage])


class FinalEmail(BaseModel):
    # Additions from a newer backend are ignored rather than rejected (DESIGN §7).
    model_config = ConfigDict(extra="ignore")

    subject: str
    body: str
    citations: list[str] = Field(default_factory=list)


class WebhookPayload(BaseModel):
    """The body of `POST /api/final-email`."""

    # NaN/inf would make `/api/state` invalid JSON for the browser.
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)

    run_id: str = Field(min_length=1, max_length=200)
    stage: Stage = "final"
    iteration: int | None = Field(None, ge=0)
    iterations: int | None = Field(None, ge=0)
    final_email: FinalEmail
    node_scores: dict[str, float]
    metrics: dict[str, float] = Field(default_factory=dict)
    # The prototype sent no timestamp; "now" keeps such events ordered by arrival.
    created_at: datetime = Field(default_factory=utc_now)

    @field_validator("created_at")
    @classmethod
    def _aware(cls, v: datetime) -> datetime:
        # A naive timestamp is read as UTC so it can be compared with aware ones.
        return v if v.tzinfo is not None else v.replace(tzinfo=UTC)

    def order_key(self) -> tuple[float, int]:
        return order_key(self.stage, self.iteration)


class EmailNode(BaseModel):
    """The latest result: one email with the node scores it came with."""

    run_id: str
    stage: Stage
    iteration: int | None
    iterations: int | None
    email: FinalEmail
    node_scores: dict[str, float]
    metrics: dict[str, float]
    created_at: datetime
    received_at: datetime
    webhook_id: str | None = None


class MetricPoint(BaseModel):
    """One webhook's metrics, kept so the reward chart works without the backend."""

    iteration: int
    stage: Stage
    metrics: dict[str, float]


class AgentState(BaseModel):
    """Everything `GET /api/state` returns; `version` grows on every change."""

    version: int = 0
    # The newest result of any run, and its run's metric points in iteration order.
    latest: EmailNode | None = None
    history: list[MetricPoint] = Field(default_factory=list)
    # The run the page last started (or resumed), so a reload still follows it, and
    # that run's own newest result: the page shows a run's email only under that run.
    active_run_id: str | None = None
    active_since: datetime | None = None
    active: EmailNode | None = None
    active_history: list[MetricPoint] = Field(default_factory=list)


def _text(max_length: int, min_length: int = 0) -> Any:
    return Field(None, min_length=min_length, max_length=max_length)


class ProspectIn(BaseModel):
    """Who the email is for, as the form describes them (DESIGN §2's prospect)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    email: str | None = _text(320)
    title: str | None = _text(200)
    company: str | None = _text(200)
    industry: str | None = _text(200)
    notes: str | None = _text(4000)
    tech_stack: list[Annotated[str, Field(max_length=100)]] | None = Field(None, max_length=50)


class ScenarioIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | None = _text(100, 1)
    prospect: ProspectIn
    goal: str = Field(min_length=1, max_length=500)
    seed_nodes: list[Annotated[str, Field(max_length=500)]] | None = Field(None, max_length=20)


class SenderIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = _text(200)
    company: str | None = _text(200)
    title: str | None = _text(200)


class GenerateRequest(BaseModel):
    """What the page's "Generate email" form sends; passed on to `POST /learn-loop`.

    Only shapes (and sane sizes) are checked here; the backend validates graphs and
    ranges and its 4xx answers are handed back to the page as they are.
    """

    model_config = ConfigDict(extra="forbid")

    iterations: int = Field(2, ge=1)
    depth: int = Field(5, ge=1)
    group_size: int | None = Field(None, ge=1)
    seed: int | None = Field(None, ge=0)
    graph: list[dict[str, object]] | None = None
    scenario: Annotated[str, Field(min_length=1, max_length=100)] | ScenarioIn | None = None
    sender: SenderIn | None = None


RUN_ID_PATTERN = r"^(run|api)-[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$"


class RatingRequest(BaseModel):
    """A rating from the page, passed on to the backend's `POST /feedback` as a human
    preference: the email named by its `email_key` (from `GET /runs/{id}`)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str | None = Field(
        None, max_length=64, pattern=r"^(run|api)-[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$"
    )
    email_key: str = Field(pattern=r"^sha256:[0-9a-f]{32}$")
    value: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    note: str | None = Field(None, max_length=2000)
