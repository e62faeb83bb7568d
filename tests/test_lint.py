"""The style checks CI holds every commit to (DESIGN §10): `ruff check`, `ruff format
--check` and `mypy codreamer`, run as a contributor runs them, so that `uv run pytest`
(the README's one test command) fails when any of the three would."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.paths import REPO


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "."],
        ["ruff", "format", "--check", "."],
        ["mypy", "codreamer"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_the_tree_passes(command: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", *command], cwd=REPO, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"
