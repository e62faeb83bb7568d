"""Atomic writes and tolerant reads of JSON and JSONL files (DESIGN §5).

A run killed at any instant leaves no half-written file. JSON files are written to a
temporary sibling, flushed, fsynced and renamed over the target. JSONL files are
append-only, one `write` per line; a reader drops a torn last line (the only damage
a kill can do to an append).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=False)


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def atomic_write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    atomic_write_text(path, "".join(_dumps(r) + "\n" for r in rows))


def append_jsonl(path: Path, row: Any) -> None:
    """Append one line with a single write; O_APPEND keeps concurrent appends whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (_dumps(row) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def iter_jsonl(path: Path) -> Iterator[Any]:
    """Rows of a JSONL file; a torn (unterminated) last line is skipped."""
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                return  # torn by a kill mid-append
            line = line.strip()
            if line:
                yield json.loads(line)


def read_jsonl(path: Path) -> list[Any]:
    return list(iter_jsonl(path))


def repair_jsonl(path: Path) -> None:
    """Cut a torn last line so later appends start on a fresh line (used on resume)."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(path, "r+b") as fh:
            fh.truncate(cut)


def remove_stale_temps(directory: Path) -> int:
    """Delete temporary files a killed writer left behind (never a target file)."""
    n = 0
    for tmp in Path(directory).glob(".*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
            n += 1
    return n
