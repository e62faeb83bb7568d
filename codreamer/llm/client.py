"""A small, synchronous OpenAI-compatible chat-completions client.

Plain httpx rather than the `openai` package, so the `openai` policy and the
`llm` judge work on the default install. Timeouts, connection errors, 429 and
5xx are retried a bounded number of times with exponential backoff and jitter,
honouring `Retry-After`; any other 4xx fails at once (retrying a bad request
only wastes the caller's time). One client is safe to share between threads,
which is how a group's rollouts run concurrently.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from codreamer.config import DEFAULT_LLM_MAX_TOKENS
from codreamer.errors import LLMError
from codreamer.llm.reply_cap import reply_cap, served_params
from codreamer.retry_after import parse_retry_after
from codreamer.tracing import op

if TYPE_CHECKING:
    from codreamer.config import Settings

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
# A rough count of tokens in a request body, for its timeout: ~4 characters a token
# in English and JSON.
CHARS_PER_TOKEN = 4
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"


class _Retryable(Exception):
    """A response worth another attempt; carries the server's Retry-After, if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


_RETRY_ON = (_Retryable, httpx.TimeoutException, httpx.TransportError)


@dataclass(frozen=True, slots=True)
class ChatResponse:
    """The first choice of a chat completion, raw, with typed accessors."""

    choice: dict[str, Any]
    raw: dict[str, Any]

    @property
    def message(self) -> dict[str, Any]:
        msg = self.choice.get("message")
        return msg if isinstance(msg, dict) else {}

    @property
    def content(self) -> str | None:
        content = self.message.get("content")
        return content if isinstance(content, str) else None

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        calls = self.message.get("tool_calls")
        return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []

    @property
    def finish_reason(self) -> str | None:
        return self.choice.get("finish_reason")

    def logprob_sum(self) -> float | None:
        """Sum of the token log-probs of this choice, when the server returned them."""
        lp = self.choice.get("logprobs")
        if not isinstance(lp, dict):
            return None
        tokens = (lp.get("content") or []) + (lp.get("refusal") or [])
        vals = [t.get("logprob") for t in tokens if isinstance(t, dict)]
        nums = [float(v) for v in vals if isinstance(v, (int, float))]
        return float(sum(nums)) if nums else None


class ChatClient:
    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout_s: float = 60.0,
        timeout_per_token_s: float = 0.0,
        max_retries: int = 3,
        backoff_initial_s: float = 0.5,
        backoff_max_s: float = 20.0,
        transport: httpx.BaseTransport | None = None,
        max_tokens: int | None = DEFAULT_LLM_MAX_TOKENS,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        # Sent with every request that does not set its own: no reply may run until
        # the server's context is full. None: asked of the server once, on the first
        # request that needs it (see reply_cap.py).
        self._max_tokens = max_tokens
        self._cap_lock = threading.Lock()
        self.max_retries = max(0, max_retries)
        # A reply's time grows with the prompt the server reads and the tokens it may
        # write; a small CPU model reads and writes a few tokens a second, so a fixed
        # timeout either fails long prompts or waits for nothing on short ones.
        self.timeout_s = timeout_s
        self.timeout_per_token_s = max(0.0, timeout_per_token_s)
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
            headers=headers,
            transport=transport,
        )

    @classmethod
    def from_settings(
        cls, settings: Settings, base_url: str | None = None, api_key: str | None = None
    ) -> ChatClient:
        return cls(
            base_url or settings.openai_base_url or OPENAI_DEFAULT_BASE_URL,
            api_key if api_key is not None else settings.openai_api_key,
            timeout_s=settings.llm_timeout_s,
            timeout_per_token_s=settings.llm_timeout_per_token_s,
            max_retries=settings.llm_max_retries,
            max_tokens=settings.llm_max_tokens,
        )

    @property
    def max_tokens(self) -> int:
        """The reply cap of requests that set none: as configured, else what suits
        the model the server serves (one `GET /models`, then remembered)."""
        with self._cap_lock:
            if self._max_tokens is None:
                self._max_tokens = self._served_cap()
            return self._max_tokens

    def _served_cap(self) -> int:
        try:
            r = self._http.get(f"{self.base_url}/models", timeout=10.0)
            n_params = served_params(r.json()) if r.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            n_params = None  # a server that cannot say gets the default
        cap = reply_cap(n_params)
        if n_params is not None:
            log.info("%s serves a %d-parameter model: %d tokens a reply", self.url, n_params, cap)
        return cap

    def timeout_for(self, body: dict[str, Any]) -> float:
        """The read timeout of one request: the base, plus the per-token allowance for
        the prompt (estimated from the body's size) and the reply's `max_tokens`."""
        if not self.timeout_per_token_s:
            return self.timeout_s
        size = len(json.dumps(body, ensure_ascii=False))
        tokens = size / CHARS_PER_TOKEN + int(body.get("max_tokens") or 0)
        return self.timeout_s + self.timeout_per_token_s * tokens

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def close(self) -> None:
        self._http.close()

    @op("codreamer.llm.chat")
    def chat(self, messages: list[dict[str, Any]], *, model: str, **params: Any) -> ChatResponse:
        """POST /chat/completions; `params` go into the body as given (tools,
        tool_choice, response_format, temperature, seed, logprobs, max_tokens, ...),
        None dropped; `max_tokens` defaults to the client's."""
        body: dict[str, Any] = {"model": model, "messages": messages}
        body.update({k: v for k, v in params.items() if v is not None})
        if "max_tokens" not in body:
            body["max_tokens"] = self.max_tokens
        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type(_RETRY_ON),
            reraise=True,
        )
        timeout = self.timeout_for(body)
        try:
            return retrying(self._post, body, timeout)
        except _Retryable as exc:
            raise LLMError(f"{self.url}: {exc} after {self.max_retries + 1} attempts") from None
        except httpx.TimeoutException:
            raise LLMError(
                f"{self.url}: timed out ({timeout:.0f} s each) after {self.max_retries + 1} "
                "attempts (CODREAMER_LLM_TIMEOUT, CODREAMER_LLM_TIMEOUT_PER_TOKEN)"
            ) from None
        except httpx.TransportError as exc:
            raise LLMError(
                f"{self.url}: {type(exc).__name__}: {exc} after {self.max_retries + 1} attempts"
            ) from None

    def _post(self, body: dict[str, Any], timeout: float) -> ChatResponse:
        r = self._http.post(
            self.url, json=body, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0))
        )
        if r.status_code in RETRY_STATUSES:
            raise _Retryable(
                f"HTTP {r.status_code}", parse_retry_after(r.headers.get("retry-after"))
            )
        if r.status_code >= 400:
            raise LLMError(f"{self.url}: HTTP {r.status_code}: {_snippet(r.text)}")
        try:
            data = r.json()
        except json.JSONDecodeError:
            raise LLMError(f"{self.url}: reply is not JSON: {_snippet(r.text)}") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise LLMError(f"{self.url}: reply has no choices: {_snippet(r.text)}")
        return ChatResponse(choice=choices[0], raw=data)

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            # The server knows best when it can take us again; only cap it.
            return float(min(self.backoff_max_s, retry_after))
        base = self.backoff_initial_s * (2 ** (state.attempt_number - 1))
        return float(min(self.backoff_max_s, base) * (0.5 + random.random() / 2))


def _snippet(text: str, n: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "…"
