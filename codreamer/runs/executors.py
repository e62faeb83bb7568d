"""Where runs execute (DESIGN §6), chosen once, here, from the settings: the celery
executor (runs/celery/) when CODREAMER_BROKER_URL is set, else the local one
(runs/local/). Whoever needs the choice (the API, the CLI) is handed the executor
this makes, and asks it, never the settings, what the mode implies."""

from __future__ import annotations

from typing import Any, Protocol

from codreamer.config import Settings
from codreamer.errors import ConfigError
from codreamer.store.paths import RunPaths
from codreamer.webhooks.claims import EventClaims


class Executor(Protocol):
    """What the API and the CLI need from where runs execute."""

    settings: Settings

    def paths(self, run_id: str) -> RunPaths: ...
    def new_paths(self, run_id: str) -> RunPaths: ...
    def claims(self) -> EventClaims | None:
        """Who may claim a webhook event, for every sender of this deployment (None:
        an flock per event)."""
        ...

    def start(self) -> list[str]:
        """Begin executing runs, and deliver the store's pending webhooks meanwhile."""
        ...

    def shutdown(self, timeout: float = 5.0) -> None: ...
    def submit(self, run_id: str, create: Any) -> int: ...
    def queue_position(self, run_id: str) -> int | None: ...
    def cancel(self, run_id: str) -> str: ...
    def resume(self, run_id: str) -> int: ...
    def snapshot(self) -> dict[str, Any]: ...
    def broker_problem(self) -> str | None: ...


def make_executor(settings: Settings) -> Executor:
    # Deferred, both: only the chosen executor is imported, so local mode loads no
    # Celery, kombu or Redis client (tests/layers checks), and celery mode no
    # multiprocessing fork server.
    if settings.broker_url:
        try:
            from codreamer.runs.celery.executor import CeleryExecutor
        except ImportError as exc:
            raise ConfigError(
                f"CODREAMER_BROKER_URL is set but the celery extra is missing ({exc}): "
                "uv sync --extra celery (or unset it for local mode)"
            ) from None
        return CeleryExecutor(settings)
    from codreamer.runs.local.executor import LocalExecutor

    return LocalExecutor(settings)
