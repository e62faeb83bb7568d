"""How many tokens one LLM reply may have when CODREAMER_LLM_MAX_TOKENS is unset:
what suits the model the server says it serves.

A small model (SmolLM2-135M, which `codreamer llm serve` bundles) mostly answers
in prose and writes until it is stopped. With the 1024 tokens sized for hosted
models a turn took 40-160 s on a busy 2-core CPU, and a 2-iteration run on a
16-node graph did not finish in 10 minutes; with 192 a turn takes ~10 s and the
run 7 min 9 s at a load of 4-8 (18 min 45 s at a load of 8.6; docs/learning.md).
llama.cpp's server names the served model's parameter count in `GET /v1/models`
(`meta.n_params`); hosted APIs do not, and keep DEFAULT_LLM_MAX_TOKENS.

The pure part is here; the one request that asks is made by the client
(codreamer.llm.client), once, on its first reply without a cap of its own.
"""

from __future__ import annotations

from typing import Any

from codreamer.config import DEFAULT_LLM_MAX_TOKENS

# Models below this many parameters get SMALL_MODEL_MAX_TOKENS a reply.
SMALL_MODEL_PARAMS = 1_000_000_000
SMALL_MODEL_MAX_TOKENS = 192


def served_params(models: Any) -> int | None:
    """The parameter count a `GET /models` answer gives for its models (the largest,
    if several), or None when it gives none (OpenAI and most hosted APIs)."""
    data = models.get("data") if isinstance(models, dict) else None
    if not isinstance(data, list):
        return None
    counts = [
        m["meta"]["n_params"]
        for m in data
        if isinstance(m, dict)
        and isinstance(m.get("meta"), dict)
        and isinstance(m["meta"].get("n_params"), int)
        and m["meta"]["n_params"] > 0
    ]
    return max(counts) if counts else None


def reply_cap(n_params: int | None) -> int:
    """The default max_tokens for a model of `n_params` parameters (None: unknown)."""
    if n_params is not None and n_params < SMALL_MODEL_PARAMS:
        return SMALL_MODEL_MAX_TOKENS
    return DEFAULT_LLM_MAX_TOKENS
