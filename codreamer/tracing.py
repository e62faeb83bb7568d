"""Weave tracing, only when `WEAVE_PROJECT` is set (DESIGN §9).

Functions are decorated with `op(...)` at import time, but `weave` is imported
and `weave.init` called only by `init_tracing(settings)` with a project set.
Until then a decorated function is called directly: no import, no warning, no
network, one global read of overhead. That keeps the default path as fast and
as quiet as it was.

Where it is on: LLM calls (`codreamer.llm.chat`), judge groups (llm, ruler),
ART training steps, and whatever else the loop decorates with `op`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from codreamer.errors import ConfigError

if TYPE_CHECKING:
    from codreamer.config import Settings

F = TypeVar("F", bound=Callable[..., Any])

_lock = threading.Lock()
_weave: Any = None  # the `weave` module once initialised
_project: str | None = None


def init_tracing(settings: Settings | None) -> bool:
    """Start Weave for `settings.weave_project`; idempotent. False when not configured."""
    global _weave, _project
    project = settings.weave_project if settings is not None else None
    if not project:
        return False
    with _lock:
        if _weave is not None and _project == project:
            return True
        try:
            # Deferred: weave is optional, loaded only when tracing is on.
            import weave
        except ImportError:
            raise ConfigError(
                "WEAVE_PROJECT is set but weave is not installed: uv sync --extra art"
            ) from None
        weave.init(project)
        _weave, _project = weave, project
    return True


def enabled() -> bool:
    return _weave is not None


def reset() -> None:
    """Forget the initialised client (tests; a process that changes its settings)."""
    global _weave, _project
    with _lock:
        _weave, _project = None, None


def _drop_self(inputs: dict[str, Any]) -> dict[str, Any]:
    # Bound objects (a client, a graph store) are noise in a trace and can be big.
    return {k: v for k, v in inputs.items() if k != "self"}


def op(name: str | None = None) -> Callable[[F], F]:
    """Trace calls of the decorated function with Weave once tracing is on."""

    def decorate(fn: F) -> F:
        traced: Any = None

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            nonlocal traced
            w = _weave
            if w is None:
                return fn(*args, **kwargs)
            if traced is None:
                traced = w.op(fn, name=name or fn.__qualname__, postprocess_inputs=_drop_self)
            return traced(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
