"""`codreamer serve`: the API and the dashboard in one process and one event loop,
webhooks wired to the dashboard. Here, in the CLI layer, because the API must not
import the dashboard (DESIGN §1, §10): they deploy separately and talk over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
from typing import Any

from codreamer.api.server import GRACEFUL_SHUTDOWN_S, client_host
from codreamer.commands.common import cli_command
from codreamer.config import Settings, get_settings
from codreamer.logs import configure_logging


class DashboardMissing(RuntimeError):
    """The `web` package (the dashboard) cannot be imported."""


def serve_both(
    *,
    host: str | None = None,
    port: int | None = None,
    web_host: str | None = None,
    web_port: int | None = None,
    log_level: str = "info",
) -> None:
    # Deferred: the servers' stack loads only for a command that starts one.
    import uvicorn

    from codreamer.api.app import create_app, server_options

    try:
        # Deferred: the servers' stack loads only for a command that starts one.
        from web.app import create_app as create_web_app
        from web.app import server_options as web_server_options
        from web.config import WebSettings
    except ImportError as exc:
        raise DashboardMissing(
            f"the dashboard (package `web`) cannot be imported: {exc}. "
            f"Run the API alone with `{cli_command()} api`."
        ) from exc

    settings: Settings = get_settings().model_copy()
    configure_logging(settings.logging)
    api_host, api_port = host or settings.api_host, port or settings.api_port
    settings.api_host = api_host
    web_settings = WebSettings()
    w_host, w_port = web_host or web_settings.host, web_port or web_settings.port
    web_settings.host = w_host
    if not settings.frontend_url:
        settings.frontend_url = f"http://{client_host(w_host)}:{w_port}/api/final-email"
    if "api_url" not in web_settings.model_fields_set:
        web_settings.api_url = f"http://{client_host(api_host)}:{api_port}"
    if web_settings.auth_required and not (settings.webhook_secret or web_settings.webhook_secret):
        # A dashboard behind a password takes only signed webhooks; the two servers
        # started together share a secret made for this process pair. Run processes
        # get it in the Settings they are handed (runs/process.py), never through
        # os.environ (DESIGN §9).
        secret = secrets.token_urlsafe(32)
        settings.webhook_secret = web_settings.webhook_secret = secret

    configs = [
        uvicorn.Config(
            create_app(settings),
            host=api_host,
            port=api_port,
            log_level=log_level,
            log_config=None,  # uvicorn's loggers go to loguru (codreamer/logs.py)
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
            **server_options(settings),
        ),
        uvicorn.Config(
            create_web_app(web_settings),
            host=w_host,
            port=w_port,
            log_level=log_level,
            log_config=None,  # uvicorn's loggers go to loguru (codreamer/logs.py)
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
            **web_server_options(web_settings),
        ),
    ]
    print(
        f"CoDreamer API on http://{client_host(api_host)}:{api_port} (docs at /docs), "
        f"dashboard on http://{client_host(w_host)}:{w_port}; "
        f"webhooks to {settings.frontend_url}",
        flush=True,
    )
    asyncio.run(_serve_together([_quiet_server(c) for c in configs]))


def _quiet_server(config: Any) -> Any:
    """A uvicorn Server that leaves signals to `_serve_together`: each Server would
    otherwise install its own handlers, and only the last one installed would stop."""

    # Deferred: the servers' stack loads only for a command that starts one.
    import uvicorn

    class QuietServer(uvicorn.Server):
        def capture_signals(self) -> Any:
            return contextlib.nullcontext()

    return QuietServer(config)


async def _serve_together(servers: list[Any]) -> None:
    loop = asyncio.get_running_loop()

    def stop() -> None:
        for s in servers:
            s.should_exit = True

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop)
    tasks = [asyncio.create_task(s.serve()) for s in servers]
    # If one server fails to start (port taken), stop the other too.
    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    stop()
    await asyncio.gather(*tasks, return_exceptions=True)
    for t in done:
        if t.exception() is not None:
            raise t.exception()  # type: ignore[misc]
