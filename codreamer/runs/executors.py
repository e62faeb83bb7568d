"""Choosing the executor (DESIGN §6): `celery` when CODREAMER_BROKER_URL is set (the
Celery and Redis clients are imported only then), else `local`."""

from __future__ import annotations

from typing import Any, Protocol

from codreamer.config import Settings
from codreamer.store.paths import RunPaths


class Executor(Protocol):
    """What the API needs from where runs execute."""

    settings: Settings

    def paths(self, run_id: str) -> RunPaths: ...
    def new_paths(self, run_id: str) -> RunPaths: ...
    def start(self) -> list[str]: ...
    def shutdown(self, timeout: float = 5.0) -> None: ...
    def submit(self, run_id: str, create: Any) -> int: ...
    def queue_position(self, run_id: str) -> int | None: ...
    def cancel(self, run_id: str) -> str: ...
    def resume(self, run_id: str) -> int: ...
    def snapshot(self) -> dict[str, Any]: ...
    def broker_problem(self) -> str | None: ...


def make_executor(settings: Settings) -> Executor:
    if settings.broker_url:
        from codreamer.runs.cluster import CeleryExecutor

        return CeleryExecutor(settings)
    from codreamer.runs.local import RunManager

    return RunManager(settings)
