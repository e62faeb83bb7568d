"""Typed errors, in one place. The API layer alone maps them to HTTP statuses."""

from __future__ import annotations

from dataclasses import dataclass

# An error never grows with its input: a list of problems keeps the first ones and
# counts the rest, and every value it quotes is cut to a readable length.
MAX_PROBLEMS_KEPT = 100
MAX_QUOTED_CHARS = 80


def quote(value: object, limit: int = MAX_QUOTED_CHARS) -> str:
    """repr() of a value a caller sent, cut to `limit` characters (an id may be 1 MB)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) > limit:
        return repr(text[:limit]) + f"... ({len(text):,} characters)"
    return repr(text)


class CoDreamerError(Exception):
    """Base of every error this package raises on purpose."""


@dataclass(frozen=True)
class GraphProblem:
    """One thing wrong with a graph; `where` names the node or edge at fault."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class Problems:
    """Collects problems: keeps the first `limit` distinct ones and counts them all."""

    def __init__(self, limit: int = MAX_PROBLEMS_KEPT) -> None:
        self.limit = limit
        self.kept: list[GraphProblem] = []
        self._seen: set[GraphProblem] = set()
        self.total = 0

    def add(self, where: str, message: str) -> None:
        if len(self.kept) >= self.limit:  # counted only: a hostile input stays cheap
            self.total += 1
            return
        problem = GraphProblem(where, message)
        if problem in self._seen:
            return
        self.total += 1
        self.kept.append(problem)
        self._seen.add(problem)

    @property
    def full(self) -> bool:
        """No more problems will be kept: callers may skip composing their messages."""
        return len(self.kept) >= self.limit

    def count(self, n: int = 1) -> None:
        self.total += n

    def __bool__(self) -> bool:
        return self.total > 0


def summarize(problems: list[GraphProblem], total: int, what: str) -> str:
    """A one-line message: the problem itself when there is one, else a count."""
    if total == 1 and problems:
        return str(problems[0])
    return f"{what}: {total:,} problems; the first {len(problems)} are listed"


class GraphValidationError(CoDreamerError):
    """A graph failed validation. Carries the first problems found (bounded) and the
    total count, so a user fixes a graph in one pass and an error stays small."""

    def __init__(self, problems: list[GraphProblem] | Problems, total: int | None = None) -> None:
        if isinstance(problems, Problems):
            total, problems = problems.total, problems.kept
        self.problems = list(problems)[:MAX_PROBLEMS_KEPT]
        self.total = max(total if total is not None else len(problems), len(self.problems))
        super().__init__(summarize(self.problems, self.total, "invalid graph"))


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
    """A scenario id that does not exist, a scenario file that does not parse, or a
    scenario whose seed node is not in the graph."""


class JSONInputError(CoDreamerError):
    """Bytes that are not JSON this service reads: broken syntax, not UTF-8, a lone
    surrogate, nesting or a number beyond the limits. Names line and column."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        self.reason = message
        self.line = line
        self.column = column
        at = f" (line {line}, column {column})" if line is not None else ""
        super().__init__(f"not valid JSON: {message}{at}")


class UnsupportedMediaTypeError(CoDreamerError):
    """A request body sent without `Content-Type: application/json`."""


class RequestShapeError(CoDreamerError):
    """Valid JSON of the wrong overall shape (e.g. a bare node list for POST /learn-loop)."""

    def __init__(self, where: str, message: str) -> None:
        self.problems = [GraphProblem(where, message)]
        super().__init__(f"{where}: {message}")


class AuthError(CoDreamerError):
    """A request without the API key the server requires."""


class TooManyStreamsError(CoDreamerError):
    """Over the cap of open event streams, per client or in total."""

    def __init__(self, message: str, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class InvalidHeaderError(CoDreamerError):
    """A request header whose value cannot be used (e.g. a Last-Event-ID that is not
    a small non-negative integer)."""

    def __init__(self, header: str, message: str) -> None:
        self.problems = [GraphProblem(f"header.{header}", message)]
        super().__init__(f"header {header}: {message}")


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


class StorageError(CoDreamerError):
    """The results store cannot be used: missing and not creatable, not a directory,
    not writable, or out of space. `part` names the path, relative to the store."""

    def __init__(self, part: str, problem: str) -> None:
        self.part = part
        self.problem = problem
        super().__init__(f"results store {part}: {problem}")


class InsufficientStorageError(CoDreamerError):
    """Less free disk than a run is estimated to need (plus the configured reserve)."""

    def __init__(self, needed: int, free: int) -> None:
        self.needed = needed
        self.free = free
        super().__init__(
            f"not enough free disk for this run: it needs about {needed / 1e6:,.0f} MB "
            f"(its estimate plus CODREAMER_MIN_FREE_MB), {free / 1e6:,.0f} MB are free"
        )


class RunTooLargeError(CoDreamerError):
    """A run whose estimated disk use is over CODREAMER_MAX_RUN_MB."""

    def __init__(self, estimate: int, cap: int) -> None:
        self.estimate = estimate
        self.cap = cap
        super().__init__(
            f"this run would write about {estimate / 1e6:,.0f} MB, over the cap of "
            f"{cap / 1e6:,.0f} MB (CODREAMER_MAX_RUN_MB): fewer iterations, a smaller "
            "group_size or fewer scenarios"
        )


class BrokerUnavailableError(CoDreamerError):
    """Celery mode and the broker (Redis) cannot be reached: try again shortly."""

    def __init__(self, detail: str, retry_after: int = 5) -> None:
        self.retry_after = retry_after
        super().__init__(f"the run broker is unreachable ({detail}); retry in {retry_after}s")


class InvalidAgentNameError(CoDreamerError):
    """An agent name that is not 1-64 letters, digits, `-` or `_` (names become directories)."""


class AgentNotFoundError(CoDreamerError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"agent {name!r} not found")


class AgentBusyError(CoDreamerError):
    """Another run is continuing this agent: two runs never fork one agent silently."""

    def __init__(self, name: str, run_id: str) -> None:
        self.name = name
        self.run_id = run_id
        super().__init__(
            f"agent {name!r} is being continued by run {run_id}; wait for it to end "
            "(or cancel it), or start a new agent under another name"
        )


class AgentMovedOnError(CoDreamerError):
    """A run asked to resume from a version its agent has moved on from: it would
    record a sibling of a newer version, a silent fork."""

    def __init__(self, name: str, run_id: str, started_from: int | None, latest: int) -> None:
        self.name = name
        self.run_id = run_id
        start = f"v{started_from}" if started_from is not None else "no version (a new agent)"
        super().__init__(
            f"agent {name!r} has moved on to v{latest} since run {run_id} started from "
            f"{start}; resuming it would fork the agent: start a new run to continue "
            f"from v{latest}"
        )


class AgentGraphError(CoDreamerError):
    """An agent version asked to continue (or write) on a graph it was not made on."""


class JobNotFoundError(CoDreamerError):
    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        super().__init__(f"job {job_id!r} not found")
