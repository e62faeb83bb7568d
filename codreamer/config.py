"""Settings: the one place that reads the environment (and `.env`), and the typed
slices of it each component is handed (DESIGN §9): `settings.webhooks`,
`settings.llm`, `settings.cluster`, `settings.logging`."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import (
    AliasChoices,
    AnyHttpUrl,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    field_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from codreamer.models import Sender
from codreamer.registry import JudgeName, PolicyName  # the registries' names

# Webhook retry delays (seconds) before each attempt: at once, 5 s, 5 min, 30 min,
# 2 h, 5 h, 10 h (Standard Webhooks / Svix style, about 18 h in all).
DEFAULT_WEBHOOK_SCHEDULE = "0,5,300,1800,7200,18000,36000"
MAX_WEBHOOK_ATTEMPTS = 100
# The most tokens one LLM reply may have when neither CODREAMER_LLM_MAX_TOKENS nor
# the served model says otherwise (sized for hosted models).
DEFAULT_LLM_MAX_TOKENS = 1024


def parse_schedule(text: str) -> tuple[float, ...]:
    """'0,5,300' -> (0.0, 5.0, 300.0); ValueError naming what is wrong."""
    parts = [p.strip() for p in str(text).split(",")]
    message = f"expected delays in seconds separated by commas, got {text!r}"
    try:
        delays = tuple(float(p) for p in parts)
    except ValueError:
        raise ValueError(message) from None
    if any(not (0 <= d < float("inf")) for d in delays):
        raise ValueError(f"delays must be finite and >= 0, got {text!r}")
    if len(delays) > MAX_WEBHOOK_ATTEMPTS:
        raise ValueError(f"at most {MAX_WEBHOOK_ATTEMPTS} attempts, got {len(delays)}")
    return delays


_HTTP_URL: TypeAdapter[AnyHttpUrl] = TypeAdapter(AnyHttpUrl)


def check_http_url(text: str) -> str:
    """The text, unchanged, if it is an http:// or https:// URL; ValueError otherwise
    (the text kept as given: a parsed URL would gain a trailing slash)."""
    if not str(text).startswith(("http://", "https://")):
        raise ValueError(f"must start with http:// or https://, got {str(text)[:200]!r}")
    _HTTP_URL.validate_python(text)
    return text


class WebhookSettings(BaseModel):
    """Where and how webhooks are delivered (DESIGN §7)."""

    model_config = ConfigDict(frozen=True)

    url: AnyHttpUrl | None = Field(None, description="FRONTEND_URL: the receiver.")
    secret: str | None = Field(None, repr=False)
    timeout_s: float = 5.0
    schedule: tuple[float, ...] = Field(description="Delays before each attempt, parsed once.")
    drain_timeout_s: float = 15.0


class LLMSettings(BaseModel):
    """The OpenAI-compatible endpoints of the LLM policies and judges (DESIGN §3, §4)."""

    model_config = ConfigDict(frozen=True)

    api_key: str | None = Field(None, repr=False)
    base_url: str | None = None
    model: str = "gpt-4o-mini"
    judge_model: str | None = None
    judge_base_url: str | None = None
    judge_api_key: str | None = Field(None, repr=False)
    timeout_s: float = 60.0
    timeout_per_token_s: float = 0.2
    max_retries: int = 3
    concurrency: int = 4
    temperature: float = 1.0
    logprobs: bool = True
    max_tokens: int | None = None  # None: what suits the served model (llm/reply_cap.py)
    judge_max_tokens: int = 1024


class ClusterSettings(BaseModel):
    """Celery mode (DESIGN §6): the broker, the queues, the run leases."""

    model_config = ConfigDict(frozen=True)

    broker_url: str | None = Field(None, repr=False)
    queue: str = "codreamer"
    gpu_queue: str = "codreamer-gpu"
    webhook_queue: str = "codreamer-webhooks"
    run_lease_ttl_s: float = 15.0
    visibility_timeout_s: int = 3600


_Slice = TypeVar("_Slice", bound=BaseModel)


class LoggingSettings(BaseModel):
    """The log level and format of every entry point."""

    model_config = ConfigDict(frozen=True)

    level: str = "INFO"
    json_lines: bool = False


def _default_data_dir() -> Path:
    beside_package = Path(__file__).resolve().parents[1] / "data"
    return beside_package if beside_package.is_dir() else Path("data")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", populate_by_name=True, env_ignore_empty=True
    )

    # Where things live.
    # The checkout's data/ (sample graph, scenarios, feedback) wherever the command
    # is run from; set CODREAMER_DATA_DIR to use another.
    data_dir: Path = Field(_default_data_dir(), validation_alias="CODREAMER_DATA_DIR")
    results_dir: Path = Field(Path("results"), validation_alias="CODREAMER_RESULTS_DIR")

    # Agent and judge.
    # Run settings the environment may default (unset: RunSpec's defaults, the one
    # declaration of every run setting, codreamer/runs/spec.py).
    policy: PolicyName | None = Field(None, validation_alias="CODREAMER_POLICY")
    judge: JudgeName | None = Field(None, validation_alias="CODREAMER_JUDGE")
    max_graph_nodes: int = Field(20_000, validation_alias="CODREAMER_MAX_GRAPH_NODES")
    # Who signs the emails (a request's `sender` wins).
    sender_name: str = Field("Sam Carter", validation_alias="CODREAMER_SENDER_NAME")
    sender_company: str | None = Field(None, validation_alias="CODREAMER_SENDER_COMPANY")
    sender_title: str | None = Field(None, validation_alias="CODREAMER_SENDER_TITLE")

    # Learn-loop defaults (the CLI's positional args and the original env names win).
    num_iters: int | None = Field(
        None, validation_alias=AliasChoices("NUM_ITERS", "CODREAMER_ITERATIONS")
    )
    depth: int | None = Field(None, validation_alias=AliasChoices("DEPTH", "CODREAMER_DEPTH"))
    run_id: str | None = Field(None, validation_alias="RUN_ID")
    # Tests only: a Unix socket every run event waits on (codreamer/store/gate.py).
    test_event_gate: Path | None = Field(None, validation_alias="CODREAMER_TEST_EVENT_GATE")

    # API.
    api_host: str = Field("127.0.0.1", validation_alias="CODREAMER_API_HOST")
    api_port: int = Field(8000, validation_alias="CODREAMER_API_PORT")
    api_key: str | None = Field(None, validation_alias="CODREAMER_API_KEY")
    api_url: str = Field(
        "http://127.0.0.1:8000",
        validation_alias=AliasChoices("CODREAMER_API_URL", "NEXT_PUBLIC_CODREAMER_API_URL"),
    )
    max_concurrent_runs: int = Field(2, validation_alias="CODREAMER_MAX_CONCURRENT_RUNS")
    max_queued_runs: int = Field(32, validation_alias="CODREAMER_MAX_QUEUED_RUNS")
    max_body_bytes: int = Field(2_000_000, validation_alias="CODREAMER_MAX_BODY_BYTES")
    # Bodies over 64 KiB parsed and validated at once; more wait their turn, so a burst
    # of large hostile bodies cannot multiply the API's memory. (Parsing holds the GIL:
    # a second one at a time would add memory, not throughput.)
    max_parallel_large_bodies: int = Field(
        1, ge=1, validation_alias="CODREAMER_MAX_PARALLEL_BODIES"
    )
    # Open GET /runs/{id}/events streams: in total, and per client address (429 beyond).
    max_event_streams: int = Field(64, ge=1, validation_alias="CODREAMER_MAX_EVENT_STREAMS")
    max_event_streams_per_client: int = Field(
        8, ge=1, validation_alias="CODREAMER_MAX_EVENT_STREAMS_PER_CLIENT"
    )
    # Where runs execute: their own processes (default), or API threads (only to
    # measure what the GIL does to API latency; see benchmarks/bench_api.py).
    run_executor: Literal["process", "thread"] = Field(
        "process", validation_alias="CODREAMER_RUN_EXECUTOR"
    )
    # Celery mode (DESIGN §6): set the broker to run on `codreamer worker` processes on
    # any number of machines sharing CODREAMER_RESULTS_DIR; unset, runs are local.
    broker_url: str | None = Field(None, validation_alias="CODREAMER_BROKER_URL")
    celery_queue: str = Field("codreamer", validation_alias="CODREAMER_CELERY_QUEUE")
    # `art` runs go here; start GPU workers with `--queues codreamer-gpu`.
    celery_gpu_queue: str = Field("codreamer-gpu", validation_alias="CODREAMER_CELERY_GPU_QUEUE")
    # Webhook delivery tasks go here; `codreamer worker` consumes it by default (on a
    # thread pool of its own, so deliveries never wait behind runs).
    celery_webhook_queue: str = Field(
        "codreamer-webhooks", validation_alias="CODREAMER_CELERY_WEBHOOK_QUEUE"
    )
    # A worker renews its run's lease every third of this; a worker that stops renewing
    # (killed, cut off) loses the run to another worker after this many seconds.
    run_lease_ttl_s: float = Field(15.0, gt=0, validation_alias="CODREAMER_RUN_LEASE_TTL")
    # Redis transport: an unacknowledged run message goes back to the queue after this
    # (the lease reaper usually requeues a lost run long before).
    celery_visibility_timeout_s: int = Field(
        3600, gt=0, validation_alias="CODREAMER_CELERY_VISIBILITY_TIMEOUT"
    )
    # Disk: a run whose estimated size is over max_run_mb is refused (422); one that
    # would leave less than min_free_mb free on the store's disk gets 507.
    max_run_mb: int = Field(1000, ge=1, validation_alias="CODREAMER_MAX_RUN_MB")
    min_free_mb: int = Field(200, ge=0, validation_alias="CODREAMER_MIN_FREE_MB")
    # `codreamer runs prune` (no --older-than) removes finished runs older than this.
    retention_days: float | None = Field(None, gt=0, validation_alias="CODREAMER_RETENTION_DAYS")
    # Retry-After (seconds) sent with a 429 when the run queue is full.
    queue_retry_after_s: int = Field(10, validation_alias="CODREAMER_QUEUE_RETRY_AFTER")
    # Host names this API answers to (comma-separated, `*` for any); the loopback names,
    # the public URL's host and a specific bind address always are. A foreign Host
    # (DNS rebinding) gets 400.
    allowed_hosts: str | None = Field(None, validation_alias="CODREAMER_ALLOWED_HOSTS")
    # The base URL clients reach this API at; URLs in answers (status_url, ...) are
    # built from it, or are relative when it is unset, never from the request's Host.
    public_url: str | None = Field(None, validation_alias="CODREAMER_PUBLIC_URL")
    # Request heads (request line + headers) over this many bytes, or with more than
    # this many headers, get 431 before anything else is done; a head not complete
    # within header_timeout_s, or a body not complete within body_timeout_s, gets 408.
    max_header_bytes: int = Field(32 * 1024, ge=1024, validation_alias="CODREAMER_MAX_HEADER_BYTES")
    max_headers: int = Field(100, ge=8, validation_alias="CODREAMER_MAX_HEADERS")
    header_timeout_s: float = Field(10.0, gt=0, validation_alias="CODREAMER_HEADER_TIMEOUT")
    body_timeout_s: float = Field(60.0, gt=0, validation_alias="CODREAMER_BODY_TIMEOUT")
    cors_origins: str = Field(
        "http://localhost:3000,http://127.0.0.1:3000", validation_alias="CODREAMER_CORS_ORIGINS"
    )

    # Webhooks.
    frontend_url: str | None = Field(None, validation_alias="FRONTEND_URL")
    webhook_secret: str | None = Field(None, validation_alias="CODREAMER_WEBHOOK_SECRET")
    webhook_timeout_s: float = Field(5.0, validation_alias="CODREAMER_WEBHOOK_TIMEOUT")
    # The delays, in seconds, before each delivery attempt; comma-separated.
    webhook_schedule: str = Field(
        DEFAULT_WEBHOOK_SCHEDULE, validation_alias="CODREAMER_WEBHOOK_SCHEDULE"
    )
    # How long `codreamer learn-loop` waits, after its run, for events due by then;
    # what is left stays pending in webhooks.jsonl for `codreamer webhooks dispatch`
    # (or a running API) to deliver on schedule.
    webhook_drain_timeout_s: float = Field(15.0, validation_alias="CODREAMER_WEBHOOK_DRAIN_TIMEOUT")

    # LLMs and ART (optional).
    openai_api_key: str | None = Field(None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(None, validation_alias="OPENAI_BASE_URL")
    openai_model: str = Field("gpt-4o-mini", validation_alias="CODREAMER_OPENAI_MODEL")
    judge_model: str | None = Field(None, validation_alias="CODREAMER_JUDGE_MODEL")
    # A request's read timeout: CODREAMER_LLM_TIMEOUT, plus CODREAMER_LLM_TIMEOUT_PER_TOKEN
    # for each token of its prompt (estimated) and of its max_tokens. 0.2 s a token
    # allows for a small model on a busy 2-core CPU (measured 6-25 tokens/s here).
    llm_timeout_s: float = Field(60.0, validation_alias="CODREAMER_LLM_TIMEOUT")
    llm_timeout_per_token_s: float = Field(
        0.2, ge=0.0, le=60.0, validation_alias="CODREAMER_LLM_TIMEOUT_PER_TOKEN"
    )
    llm_max_retries: int = Field(3, validation_alias="CODREAMER_LLM_MAX_RETRIES")
    llm_concurrency: int = Field(4, validation_alias="CODREAMER_LLM_CONCURRENCY")
    # Sampling temperature of the openai/art policies' non-greedy rollouts (greedy uses 0).
    llm_temperature: float = Field(1.0, validation_alias="CODREAMER_LLM_TEMPERATURE")
    # Ask for token log-probs (some OpenAI-compatible servers reject the field).
    llm_logprobs: bool = Field(True, validation_alias="CODREAMER_LLM_LOGPROBS")
    # The most tokens one LLM reply may have (policy turns, prompt suggestions):
    # one runaway tool argument must not fill a server's context. Unset: what suits
    # the served model (codreamer/llm/reply_cap.py): 192 for a model under 1B
    # parameters on llama.cpp (`codreamer llm serve`), else DEFAULT_LLM_MAX_TOKENS.
    llm_max_tokens: int | None = Field(
        None, ge=16, le=32_768, validation_alias="CODREAMER_LLM_MAX_TOKENS"
    )
    # The same bound for the llm judge's answers (a JSON object of short reasons).
    judge_max_tokens: int = Field(
        1024, ge=64, le=32_768, validation_alias="CODREAMER_JUDGE_MAX_TOKENS"
    )
    # The prompt trainer also asks the policy's LLM to rewrite the weakest section
    # (its rule-based suggestions are always made; a bad LLM answer is dropped).
    prompt_llm_suggestions: bool = Field(False, validation_alias="CODREAMER_PROMPT_LLM_SUGGESTIONS")
    # Few-shot exemplars the prompt trainer keeps in an LLM policy's prompt.
    prompt_exemplars: int = Field(2, ge=0, le=4, validation_alias="CODREAMER_PROMPT_EXEMPLARS")
    # The llm/ruler judges' endpoint; defaults to OPENAI_BASE_URL / OPENAI_API_KEY.
    judge_base_url: str | None = Field(None, validation_alias="CODREAMER_JUDGE_BASE_URL")
    judge_api_key: str | None = Field(None, validation_alias="CODREAMER_JUDGE_API_KEY")
    art_backend: Literal["local", "serverless"] = Field("local", validation_alias="ART_BACKEND")
    art_base_model: str = Field("Qwen/Qwen2.5-7B-Instruct", validation_alias="ART_BASE_MODEL")
    art_project: str = Field("codreamer", validation_alias="ART_PROJECT")
    # The ART trainable model's name: runs with the same name train the same model.
    art_model_name: str = Field("codreamer-agent", validation_alias="ART_MODEL_NAME")
    art_learning_rate: float = Field(5e-6, validation_alias="ART_LEARNING_RATE")
    wandb_api_key: str | None = Field(None, validation_alias="WANDB_API_KEY")
    weave_project: str | None = Field(None, validation_alias="WEAVE_PROJECT")

    # Logging (loguru; the stdlib loggers of uvicorn, Celery and httpx routed into it).
    log_level: Literal["TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        "INFO", validation_alias="CODREAMER_LOG_LEVEL"
    )
    # One JSON object a line (for a log collector) instead of text.
    log_json: bool = Field(False, validation_alias="CODREAMER_LOG_JSON")

    @field_validator("webhook_schedule")
    @classmethod
    def _check_schedule(cls, value: str) -> str:
        parse_schedule(value)
        return value

    @field_validator("frontend_url")
    @classmethod
    def _check_frontend_url(cls, value: str | None) -> str | None:
        return None if value is None else check_http_url(value)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @property
    def webhooks(self) -> WebhookSettings:
        return WebhookSettings(
            url=self.frontend_url,  # type: ignore[arg-type]  # validated above
            secret=self.webhook_secret,
            timeout_s=self.webhook_timeout_s,
            schedule=parse_schedule(self.webhook_schedule),
            drain_timeout_s=self.webhook_drain_timeout_s,
        )

    @property
    def llm(self) -> LLMSettings:
        return self._slice(
            LLMSettings,
            "llm_",
            api_key="openai_api_key",
            base_url="openai_base_url",
            model="openai_model",
        )

    @property
    def cluster(self) -> ClusterSettings:
        return self._slice(ClusterSettings, "celery_")

    def _slice(self, kind: type[_Slice], prefix: str, /, **named: str) -> _Slice:
        """The slice `kind`, each of its fields copied from one flat setting: the one
        `named` for it, else `prefix` + its name if that setting exists, else its own
        name (the flat names are the environment's, kept for compatibility)."""
        flat = type(self).model_fields
        values = {}
        for field in kind.model_fields:
            source = named.get(field) or (prefix + field if prefix + field in flat else field)
            values[field] = getattr(self, source)
        return kind(**values)

    @property
    def logging(self) -> LoggingSettings:
        return LoggingSettings(level=self.log_level, json_lines=self.log_json)

    @property
    def sender(self) -> Sender:
        return Sender(name=self.sender_name, company=self.sender_company, title=self.sender_title)

    @property
    def runs_dir(self) -> Path:
        return self.results_dir / "runs"

    @property
    def default_graph_path(self) -> Path:
        return self.data_dir / "graph.json"

    @property
    def scenarios_path(self) -> Path:
        return self.data_dir / "scenarios.json"

    @property
    def feedback_path(self) -> Path:
        """Feedback on runs that continue no agent (an agent's own file is beside it,
        `feedback/<agent>.jsonl`): in the results store, never in the tracked data/."""
        return self.results_dir / "feedback" / "runs.jsonl"

    @property
    def prompt_overrides_path(self) -> Path:
        """Prompt sections saved by `codreamer prompts apply`, for later runs."""
        return self.data_dir / "prompt_overrides.json"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
