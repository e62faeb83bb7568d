"""Logging: one configuration routes the stdlib's loggers into loguru, a run's lines
carry its id, JSON lines on demand, and no URL credentials in any line."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from loguru import logger

from codreamer.config import LoggingSettings
from codreamer.logs import configure_logging
from codreamer.store.events import EventLog

RUN_ID = "run-20250101-000000-abcdef"


@pytest.fixture
def lines() -> Iterator[list[str]]:
    out: list[str] = []
    yield out
    logger.remove()
    logger.disable("codreamer")
    logging.basicConfig(handlers=[], force=True)


def test_a_run_event_is_one_line_with_the_run_id(tmp_path: Path, lines: list[str]) -> None:
    configure_logging(LoggingSettings(level="INFO"), sink=lines.append)
    log = EventLog(tmp_path / RUN_ID / "events.jsonl")
    log.emit("iteration_started", iteration=2, email={"body": "secret text"})
    (line,) = lines
    assert RUN_ID in line and "iteration_started" in line and "iteration=2" in line
    assert "secret text" not in line


def test_stdlib_loggers_are_routed_and_credentials_masked(lines: list[str]) -> None:
    configure_logging(LoggingSettings(level="INFO"), sink=lines.append)
    logging.getLogger("uvicorn.error").info("POST http://user:pw@127.0.0.1:9/hook")
    logging.getLogger("httpx").debug("below the level")
    (line,) = lines
    assert "http://***@127.0.0.1:9/hook" in line and "pw" not in line


def test_json_lines(tmp_path: Path, lines: list[str]) -> None:
    configure_logging(LoggingSettings(level="INFO", json_lines=True), sink=lines.append)
    EventLog(tmp_path / RUN_ID / "events.jsonl").emit("run_started")
    record = json.loads(lines[0])["record"]
    assert record["extra"]["run_id"] == RUN_ID and record["level"]["name"] == "INFO"


def test_unconfigured_the_package_is_quiet(tmp_path: Path, lines: list[str]) -> None:
    logger.remove()
    logger.add(lines.append, level="TRACE")
    logger.disable("codreamer")
    EventLog(tmp_path / RUN_ID / "events.jsonl").emit("run_started")
    assert lines == []
