"""Running the API with uvicorn (`codreamer api`). `codreamer serve`, the API beside
the dashboard, lives with the CLI (codreamer/commands/serve.py): the API never
imports the dashboard."""

from __future__ import annotations

from codreamer.config import get_settings
from codreamer.logs import configure_logging

# Open SSE streams must not hold a shutdown hostage.
GRACEFUL_SHUTDOWN_S = 3


def client_host(host: str) -> str:
    # A server bound to every interface is reached on loopback from this machine.
    return "127.0.0.1" if host in ("0.0.0.0", "::", "") else host


def serve_api(*, host: str | None = None, port: int | None = None, log_level: str = "info") -> None:
    # Deferred: the CLI imports this module; uvicorn and the API load only when one starts.
    import uvicorn

    from codreamer.api.app import create_app, server_options

    settings = get_settings()
    if host:  # a bind address given on the command line is a name this API answers to
        settings = settings.model_copy(update={"api_host": host})
    configure_logging(settings.logging)
    uvicorn.run(
        create_app(settings),
        host=host or settings.api_host,
        port=port or settings.api_port,
        log_level=log_level,
        log_config=None,  # uvicorn's loggers go to loguru (codreamer/logs.py)
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        **server_options(settings),
    )
