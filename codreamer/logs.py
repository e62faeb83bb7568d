"""Logging (DESIGN §9): loguru, configured once at each entry point from
`settings.logging` (CODREAMER_LOG_LEVEL, CODREAMER_LOG_JSON), with the stdlib loggers
of uvicorn, Celery, httpx and the project's own modules routed into it.

A run's lines carry its id (`run_lines(run_id)` binds it). Lines name what happened
and where, never a secret, a key or an email's text: a URL's user:password part is
masked on every line."""

from __future__ import annotations

import logging
import re
import sys
from typing import TYPE_CHECKING, Any

from loguru import logger

if TYPE_CHECKING:
    from loguru import Logger, Record

    from codreamer.config import LoggingSettings

# Loggers that set up handlers of their own; theirs go, so each line is written once.
ROUTED = ("uvicorn", "uvicorn.error", "uvicorn.access", "celery", "httpx", "httpcore")

# A library stays quiet until an entry point configures logging (loguru's own advice
# for libraries): tests and scripts that import codreamer get no stray stderr lines.
logger.disable("codreamer")

_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.I)
TEXT_FORMAT = (
    "<green>{time:YYYY-MM-DD HH:mm:ss.SSS}</green> | <level>{level: <8}</level> | "
    "{extra[run_id]} | <cyan>{name}</cyan> - <level>{message}</level>"
)


def _mask(record: Record) -> None:
    record["message"] = _USERINFO.sub(r"\g<scheme>***@", record["message"])
    record["extra"].setdefault("run_id", "-")


class _ToLoguru(logging.Handler):
    """A stdlib handler that hands each record to loguru, at the caller's depth."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level: str | int = logger.level(record.levelname).name
        except ValueError:
            level = record.levelno
        frame, depth = logging.currentframe(), 2
        while frame is not None and frame.f_code.co_filename == logging.__file__:
            frame, depth = frame.f_back, depth + 1  # type: ignore[assignment]
        logger.opt(depth=depth, exception=record.exc_info).log(level, record.getMessage())


def configure_logging(settings: LoggingSettings, sink: Any = None) -> None:
    """Replace every handler: loguru writes to stderr (or `sink`), the stdlib's
    loggers go through it. Calling it again (a second entry point in one process)
    just configures it anew."""
    logger.remove()
    logger.configure(patcher=_mask, extra={"run_id": "-"})
    logger.add(
        sink if sink is not None else sys.stderr,
        level=settings.level,
        serialize=settings.json_lines,
        format=TEXT_FORMAT,
        colorize=None if sink is None else False,
        backtrace=False,
        diagnose=False,  # no variable values (a key, an email) in tracebacks
    )
    # The stdlib drops records below the level before building them (httpcore's debug
    # lines cost something on every request).
    std_level = logging.getLevelNamesMapping().get(settings.level, 5)
    logging.basicConfig(handlers=[_ToLoguru()], level=std_level, force=True)
    logger.enable("codreamer")
    for name in ROUTED:
        std = logging.getLogger(name)
        std.handlers.clear()
        std.propagate = True
        # A library's own logging config (uvicorn's dictConfig) may have disabled
        # the logger or given it a level of its own: the one configuration decides.
        std.disabled = False
        std.setLevel(logging.NOTSET)


def run_lines(run_id: str) -> Logger:
    """The logger for one run's lines: each carries `run_id`."""
    return logger.bind(run_id=run_id)
