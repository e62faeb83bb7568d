"""Server commands (codreamer/api, web): `api`, `serve`, `web`."""

from __future__ import annotations

import errno
import socket
from typing import Annotated

import typer

from codreamer.api.server import serve_api
from codreamer.commands.common import fail
from codreamer.commands.serve import DashboardMissing, serve_both
from codreamer.config import get_settings


def port_taken(host: str, port: int) -> str | None:
    """Why `host:port` cannot be served (None: it can). Binds the way uvicorn does
    (SO_REUSEADDR), so a port only lingering in TIME_WAIT is not reported taken."""

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return "is already in use"
            if exc.errno == errno.EACCES:
                return "needs privileges this user lacks"
            return f"cannot be bound: {exc.strerror or exc}"
    return None


def check_ports(*servers: tuple[str, str, int, str, str]) -> None:
    """One line naming the flag (and variable) to change, instead of uvicorn's error
    and a traceback, when a port cannot be served. Each server is (what, host, port,
    flag, env)."""
    for what, host, port, flag, env in servers:
        reason = port_taken(host, port)
        if reason is not None:
            raise fail(
                f"{what} port {port} on {host} {reason}: choose another with {flag} "
                f"(or set {env}), or stop what is using it",
                2,
            )


def register(app: typer.Typer) -> None:
    app.command("api")(api_cmd)
    app.command("serve")(serve_cmd)
    app.command("web")(web_cmd)


def api_cmd(
    host: Annotated[
        str | None, typer.Option(help="Interface (env CODREAMER_API_HOST; default 127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=1, max=65535, help="Port (env CODREAMER_API_PORT; default 8000)."),
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Serve the backend API: start runs, follow them, cancel, resume."""

    settings = get_settings()
    host, port = host or settings.api_host, port or settings.api_port
    check_ports(("API", host, port, "--port", "CODREAMER_API_PORT"))
    serve_api(host=host, port=port, log_level=log_level)


def serve_cmd(
    host: Annotated[str | None, typer.Option(help="API interface (default 127.0.0.1).")] = None,
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="API port (default 8000).")
    ] = None,
    web_host: Annotated[
        str | None, typer.Option(help="Dashboard interface (default 127.0.0.1).")
    ] = None,
    web_port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="Dashboard port (default 3000).")
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Serve the API and the dashboard together, webhooks wired to the dashboard.

    FRONTEND_URL defaults to the dashboard's receiver (http://127.0.0.1:3000/api/final-email).
    """

    settings = get_settings()
    try:
        # Deferred: the servers' stack loads only for a command that starts one.
        from web.config import WebSettings

        web = WebSettings()
        web_host_, web_port_ = web_host or web.host, web_port or web.port
    except ImportError:
        web_host_, web_port_ = web_host or "127.0.0.1", web_port or 3000
    api_host, api_port = host or settings.api_host, port or settings.api_port
    check_ports(
        ("API", api_host, api_port, "--port", "CODREAMER_API_PORT"),
        ("dashboard", web_host_, web_port_, "--web-port", "CODREAMER_WEB_PORT"),
    )
    try:
        serve_both(host=host, port=port, web_host=web_host, web_port=web_port, log_level=log_level)
    except DashboardMissing as exc:
        raise fail(str(exc)) from None


def web_cmd(
    host: Annotated[str | None, typer.Option(help="Interface (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="Port (default 3000).")] = None,
) -> None:
    """Serve the dashboard alone; it talks to the API at CODREAMER_API_URL."""
    # Deferred: the servers' stack loads only for a command that starts one.
    from web.app import main as web_main
    from web.config import WebSettings

    settings = WebSettings()
    host, port = host or settings.host, port or settings.port
    check_ports(("dashboard", host, port, "--port", "CODREAMER_WEB_PORT"))
    web_main(host=host, port=port)
