"""A run's process dies with whoever started it (DESIGN §6), in both executors: a local
run process with the API (or its fork server), a celery pool process with its worker.
SIGKILL gives the parent no chance to clean up, so the child watches instead, and a
run never goes on unsupervised (the next executor resumes it from its files)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

PARENT_POLL_S = 0.25
_watching = 0  # the pid whose parent is watched already


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def exit_with_parent(check_alive: Callable[[], bool] | None = None) -> None:
    """Die when the process that started this one dies. `check_alive`: a further test.
    Once per process: a celery pool process calls it for every run it executes."""
    global _watching
    if _watching == os.getpid():
        return
    _watching = os.getpid()
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent or (check_alive is not None and not check_alive()):
                # No cleanup: the run's files are consistent at every instant, and
                # whoever comes next marks the run interrupted or resumes it.
                os._exit(70)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
