"""Typed errors, in one place. The API layer alone maps them to HTTP statuses."""

from __future__ import annotations

from dataclasses import dataclass


class CoDreamerError(Exception):
    """Base of every error this package raises on purpose."""


@dataclass(frozen=True)
class GraphProblem:
    """One thing wrong with a graph; `where` names the node or edge at fault."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class GraphValidationError(CoDreamerError):
    """A graph failed validation. Carries every problem found, not just the first."""

    def __init__(self, problems: list[GraphProblem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(str(p) for p in self.problems) or "invalid graph")


class GraphTooLargeError(GraphValidationError):
    """A graph over a configured size cap (node count, or the oracle's search cap)."""


class UnknownNodeError(CoDreamerError, KeyError):
    def __init__(self, node_id: str) -> None:
        self.node_id = node_id
        super().__init__(f"unknown node {node_id!r}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


class UnknownToolError(CoDreamerError, LookupError):
    """An LLM called a tool that does not exist."""

    def __init__(self, name: str, known: tuple[str, ...] = ()) -> None:
        self.name = name
        super().__init__(f"unknown tool {name!r}; known: {', '.join(known)}")

    def __str__(self) -> str:
        return self.args[0]


class DataFileError(CoDreamerError):
    """A data file (graph, scenarios, emails) that is missing, unreadable or not valid JSON."""


class ScenarioError(CoDreamerError):
    """A scenario id that does not exist, or a scenario file that does not parse."""


class ConfigError(CoDreamerError):
    """Configuration that cannot work (e.g. policy `openai` without a base URL)."""


class RunNotFoundError(CoDreamerError):
    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(f"run {run_id!r} not found")


class InvalidRunIdError(CoDreamerError):
    """A run id that is not of the form run-/api-YYYYMMDD-HHMMSS-xxxxxx (path safety)."""


class RunStateError(CoDreamerError):
    """An operation the run's current status does not allow (e.g. resume a succeeded run)."""


class QueueFullError(CoDreamerError):
    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(f"run queue is full; retry after {retry_after}s")


class RunCancelled(CoDreamerError):
    """Raised inside a run at a step boundary after cancellation was requested."""


class PolicyError(CoDreamerError):
    """A policy failed in a way the rollout cannot recover from."""


class JudgeError(CoDreamerError):
    """A judge failed for a group; the loop reports it and skips that group."""


class OracleTooLargeError(CoDreamerError):
    """The exhaustive oracle search would exceed its cap."""


class LLMError(CoDreamerError):
    """An OpenAI-compatible endpoint failed: retries exhausted, a 4xx, or a reply that
    is not a chat completion. Policies turn it into PolicyError, judges into JudgeError."""
