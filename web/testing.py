"""Run an ASGI app on a free loopback port in a background thread.

For tests, benchmarks and demos that need a real server (real sockets, real
uvicorn) without a subprocess. Lives here rather than under tests/ so both test
folders and the benchmark can import it.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serve_in_thread(
    app: ASGIApp, port: int | None = None, start_timeout_s: float = 10.0, **options: Any
) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 while the block runs; yields its base URL. `options`
    go to uvicorn (e.g. `http=` from web.app.server_options)."""
    port = port or free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        # Open SSE streams (a browser tab) must not keep the server from stopping.
        timeout_graceful_shutdown=1,
        **options,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"server on port {port} did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
