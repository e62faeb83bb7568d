"""The API's retention service (DESIGN §5): prunes ended runs older than
CODREAMER_RETENTION_DAYS at start and then every few hours, in a thread."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from codreamer.runs.local.process import is_run_alive
from codreamer.store.retention import prune


class RetentionPruner:
    """In the API: prunes runs older than CODREAMER_RETENTION_DAYS at start and then
    every `interval_s` (agents are kept)."""

    def __init__(self, results_dir: Path, days: float, interval_s: float = 6 * 3600) -> None:
        self.results_dir = results_dir
        self.days = days
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="retention", daemon=True)

    def start(self) -> RetentionPruner:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while True:
            try:
                report = prune(self.results_dir, self.days, is_run_alive=is_run_alive)
                if report.removed_runs:
                    logging.getLogger(__name__).info("retention: %s", report.as_dict())
            except OSError:  # the store is unwell: /healthz says so; try again later
                logging.getLogger(__name__).warning("retention: prune failed", exc_info=True)
            if self._stop.wait(self.interval_s):
                return
