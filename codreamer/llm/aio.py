"""Run coroutines (ART, LiteLLM) from the synchronous loop on one long-lived event loop.

`asyncio.run` per call would give every call a fresh loop, but ART's backends and
LiteLLM keep clients bound to the loop they were made on; a second `asyncio.run`
then meets "Event loop is closed". One daemon thread owns one loop for the
process, and callers block on the result. It also works when the caller is
itself inside a running loop (the API), which `asyncio.run` refuses.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="codreamer-aio", daemon=True).start()
            _loop = loop
        return _loop


def run_sync(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run `coro` on the shared background loop and wait for its result."""
    future = asyncio.run_coroutine_threadsafe(coro, _background_loop())
    return future.result(timeout)
