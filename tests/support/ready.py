"""`python -m tests.support.ready MODULE ARGS…`: run `python -m MODULE ARGS…`, and
print uvicorn's "running on" line once each of its uvicorn servers has started (its
lifespan done, its socket bound), whatever log level the command was given.

Tests start the API at log level "warning" (no line per request, as an operator
would), which hides uvicorn's own line; this is how they still learn, by an event
rather than by retrying the port, that it is up. Nothing else changes: the module
runs as `__main__`, exactly as `python -m` would run it.
"""

from __future__ import annotations

import os
import runpy
import socket
import sys

import uvicorn

_startup = uvicorn.Server.startup


async def _announced_startup(
    self: uvicorn.Server, sockets: list[socket.socket] | None = None
) -> None:
    await _startup(self, sockets)
    if self.started:
        # One write, so the line is never split by another thread's output.
        os.write(1, f"Uvicorn running on http://{self.config.host}:{self.config.port}\n".encode())


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit("usage: python -m tests.support.ready MODULE [ARGS...]")
    module = sys.argv[1]
    sys.argv = [module, *sys.argv[2:]]
    uvicorn.Server.startup = _announced_startup  # type: ignore[method-assign]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
