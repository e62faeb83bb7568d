"""Shared data models: emails, prospects, scenarios, judgements, webhook payloads."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

CUSTOMER_JOB = "Customer Job"
PRODUCT_FEATURE = "Product Feature"


class FinalEmail(BaseModel):
    subject: str
    body: str
    citations: list[str] = Field(default_factory=list)


_HONORIFICS = frozenset({"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "sir", "dame"})


class Prospect(BaseModel):
    model_config = ConfigDict(extra="ignore")

    prospect_id: str | None = None
    name: str = Field(min_length=1)
    email: str | None = None
    title: str | None = None
    company: str | None = None
    industry: str | None = None
    tech_stack: list[str] = Field(default_factory=list)
    # What a seller knows about the prospect (priorities, pains, recent events).
    notes: str | None = Field(None, max_length=4000)

    @property
    def first_name(self) -> str:
        # "Dr. Amara Osei" is greeted "Amara", never "Dr."; "Dr. Osei" keeps the title.
        words = self.name.split()
        if len(words) > 1 and words[0].rstrip(".").lower() in _HONORIFICS:
            return words[1] if len(words) > 2 else self.name.strip()
        return words[0] if words else self.name


class Sender(BaseModel):
    """Who sends the email (DESIGN §2): every policy is told, so no email needs a
    placeholder; the composer signs with it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(
        "Sam Carter", min_length=1, max_length=120, description="Who signs the emails."
    )
    company: str | None = Field(None, max_length=120, description="The sender's company.")
    title: str | None = Field(None, max_length=120, description="The sender's title.")

    def signature(self) -> str:
        """The sign-off lines under "Best regards,"."""
        role = ", ".join(x.strip() for x in (self.title, self.company) if x and x.strip())
        return f"{self.name.strip()}\n{role}" if role else self.name.strip()

    def describe(self) -> str:
        """One line for an LLM prompt: "Sam Carter, Account Executive at Frostline"."""
        out = self.name.strip()
        if self.title and self.title.strip():
            out += f", {self.title.strip()}"
        if self.company and self.company.strip():
            out += f" at {self.company.strip()}"
        return out


class Scenario(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = "custom"
    prospect: Prospect
    goal: str = Field(min_length=1)
    seed_nodes: list[str] = Field(default_factory=lambda: [CUSTOMER_JOB])
    held_out: bool = False  # kept for evaluation (step 5), never trained on

    @field_validator("seed_nodes")
    @classmethod
    def _non_empty(cls, v: list[str]) -> list[str]:
        return v or [CUSTOMER_JOB]


class CriterionScore(BaseModel):
    score: float = Field(ge=0.0, le=1.0)
    weight: float = Field(ge=0.0)
    reason: str


class Judgement(BaseModel):
    """The result shape every judge returns (rubric, llm, ruler)."""

    total: float = Field(ge=0.0, le=1.0)
    criteria: dict[str, CriterionScore] = Field(default_factory=dict)


class RewardStats(BaseModel):
    n: int = 0
    mean: float = 0.0
    median: float = 0.0
    min: float = 0.0
    max: float = 0.0
    std: float = 0.0


Stage = Literal["baseline", "iteration", "final"]


def utc_now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class WebhookPayload(BaseModel):
    """DESIGN §7. `run_id`, `final_email`, `node_scores` are the prototype's schema."""

    run_id: str
    stage: Stage = "final"
    iteration: int | None = None
    iterations: int | None = None
    final_email: FinalEmail
    node_scores: dict[str, float]
    metrics: dict[str, float] = Field(default_factory=dict)
    created_at: str = Field(default_factory=utc_now_iso)
