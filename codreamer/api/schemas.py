"""Request and response bodies of the HTTP API (its OpenAPI schema comes from here)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model

from codreamer.models import Scenario
from codreamer.runs.spec import RunSpec, request_fields
from codreamer.store.status import RunStatus as RunStatusName

EXAMPLE: dict[str, Any] = {
    "graph": [
        {
            "id": "Customer Job",
            "content": "Validates synthetic data quality",
            "edge": [{"target_id": "Product Feature", "relationship": "is solved by"}],
        },
        {"id": "Product Feature", "content": "An integrated feedback system", "edge": []},
    ],
    "iterations": 2,
    "depth": 5,
}


_EDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "target_id": {"type": "string"},
        "target": {"type": "string"},
        "relationship": {"type": "string"},
        "label": {"type": "string"},
        "rationale": {"type": "string"},
    },
    "additionalProperties": False,
}
_NODE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "content": {"type": "string"},
        "edge": {"type": "array", "items": _EDGE_SCHEMA},
        "edges": {"type": "array", "items": _EDGE_SCHEMA},
        "verification": {"type": "object"},
    },
    "additionalProperties": False,
}

# Validated by codreamer/graph/schema.py alone (one parser for the API, the CLI and
# the loader: bounded problem lists, node keys checked); the schema documents it.
GraphNodes = Annotated[list[Any], WithJsonSchema({"type": "array", "items": _NODE_SCHEMA})]


class ScenarioIn(Scenario):
    """A scenario in a request: an unknown key (`seed_node`) is refused, not ignored."""

    model_config = ConfigDict(extra="forbid")


class _RequestBase(BaseModel):
    """What a request gives besides the run settings: the graph and the scenarios."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [EXAMPLE]})

    graph: GraphNodes | None = Field(
        None,
        description="The run's knowledge graph: a list of nodes (`id`, `content`, and `edge` "
        "with `target_id`/`relationship`/`rationale`, or `edges` with `target`/`label`). "
        "Default: the server's data/graph.json.",
    )
    scenario: str | ScenarioIn | None = Field(
        None,
        description="A scenario id from GET /scenarios, or a scenario object "
        "(`prospect` with at least `name`, and `goal`). Default: the sample prospects "
        "on the default graph; a neutral reader on a graph of your own.",
    )
    scenarios: list[str | Scenario] | None = Field(
        None,
        max_length=64,
        description="Several training scenarios (ids or objects); each iteration draws a "
        "group for every one. Objects with `held_out: true` are evaluated, not trained on.",
    )

    def settings_given(self) -> dict[str, Any]:
        """The run settings of the request, by name (None: not given)."""
        return {name: getattr(self, name) for name in RunSpec.model_fields}


# The run settings' fields are generated from RunSpec, their one declaration: its
# names, types, bounds and meanings, each optional (omitted: the default).
_WithSettings: Any = create_model("LearnLoopRequest", __base__=_RequestBase, **request_fields())


class LearnLoopRequest(_WithSettings):  # type: ignore[misc]
    """`POST /learn-loop`. Every field is optional; omitted ones take the defaults."""


class RunAccepted(BaseModel):
    run_id: str
    status: str
    queue_position: int = Field(description="0: starts at once; n: n runs ahead of it.")
    results_path: str
    status_url: str
    events_url: str
    graph_url: str
    disk_estimate_mb: float = Field(
        0.0,
        description="What the run is expected to write to the results store, in MB "
        "(refused over CODREAMER_MAX_RUN_MB).",
    )
    prospects: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Who the run writes to: the training prospects, then the held-out ones.",
    )
    agent: str | None = Field(None, description="The agent the run continues.")
    agent_version: int | None = Field(
        None, description="The version it starts from (null: a new agent)."
    )
    notes: list[str] = Field(
        default_factory=list,
        description="What the caller should know about the run as planned, in words "
        "(e.g. a held-out sample prospect picked alone is trained on).",
    )


class RunSummary(BaseModel):
    run_id: str
    status: str
    created_at: str | None = None
    updated_at: str | None = None
    finished_at: str | None = None
    progress: dict[str, Any] = Field(default_factory=dict)
    prospects: list[dict[str, Any]] = Field(
        default_factory=list, description="Who the run trained on."
    )
    agent: str | None = None
    agent_version: int | None = Field(None, description="The version the run recorded.")
    final_reward: float | None = None
    status_url: str


class RunList(BaseModel):
    runs: list[RunSummary]
    count: int
    total: int = 0
    offset: int = 0
    next_offset: int | None = None


class GivenUpWebhook(BaseModel):
    webhook_id: str
    stage: str
    iteration: int | None = None
    attempts: int
    status_code: int | None = None
    reason: str | None = None


class WebhookSummary(BaseModel):
    delivered: int = 0
    failed: int = Field(0, description="Events given up on (see `given_up`).")
    pending: int = Field(0, description="Events waiting for their next scheduled attempt.")
    skipped: int = Field(0, description="Events recorded while no FRONTEND_URL was set.")
    next_attempt_at: str | None = None
    final: Literal["pending", "delivered", "gave_up", "skipped"] | None = Field(
        None,
        description="What became of the final event (skipped: no FRONTEND_URL); "
        "None until the run produces one.",
    )
    given_up: list[GivenUpWebhook] = Field(
        default_factory=list, description="The first 20 events given up on, with why."
    )


class RunStatus(BaseModel):
    model_config = ConfigDict(extra="allow")

    run_id: str
    status: RunStatusName
    progress: dict[str, Any] = Field(default_factory=dict)
    metrics: dict[str, Any] = Field(default_factory=dict)
    latest_email: dict[str, Any] | None = None
    eval: dict[str, Any] | None = Field(
        None,
        description="Step 5's EvalReport, once the run has one: on the held-out scenarios, "
        "or (split 'training') on the training prospects of a run with several and none "
        "held out; each result carries its email.",
    )
    error: str | None = None
    queue_position: int | None = None
    webhooks: WebhookSummary = Field(default_factory=WebhookSummary)
    results_path: str | None = None


class GraphNodeOut(BaseModel):
    id: str
    content: str
    score: float


class GraphEdgeOut(BaseModel):
    source: str
    target: str
    relationship: str


class RunGraph(BaseModel):
    run_id: str
    iteration: int | None = Field(description="The iteration the scores are from (None: initial).")
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]


class RunAction(BaseModel):
    run_id: str
    status: str
    queue_position: int | None = None


class FeedbackAccepted(BaseModel):
    status: Literal["recorded"] = "recorded"
    event: dict[str, Any]


class Limits(BaseModel):
    """What this API accepts and sends, so a separately deployed dashboard can accept
    the same requests and every webhook."""

    max_body_bytes: int = Field(description="The largest request body (413 above).")
    max_graph_nodes: int = Field(description="The most nodes a graph may have.")
    max_webhook_bytes: int = Field(
        description="The largest webhook body a run of an accepted request can produce."
    )


class ScenarioList(BaseModel):
    scenarios: list[Scenario]
    default: str | None


class Health(BaseModel):
    status: Literal["ok", "unavailable"] = "ok"
    active_runs: int
    queued_runs: int
    checks: dict[str, str] = Field(
        default_factory=dict,
        description="Each part checked (storage, broker): `ok`, or what is wrong with it.",
    )


class Problem(BaseModel):
    where: str
    message: str


class ErrorBody(BaseModel):
    detail: str = Field(description="One line; a count when there are several problems.")
    problems: list[Problem] = Field(
        default_factory=list, description="The first 20 problems, each named by `where`."
    )
    problem_count: int = Field(0, description="How many problems there were in all.")
