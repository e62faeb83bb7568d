"""The tests' one way to run the CLI: `python -m codreamer.cli ARGS…` (or the installed
`codreamer` script, where that is what is under test) as a real child process, in a
clean environment unless the test gives its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.env import clean_env
from tests.support.paths import REPO


def codreamer_argv(*args: str) -> list[str]:
    """`python -m codreamer.cli args…` with this interpreter."""
    return [sys.executable, "-m", "codreamer.cli", *args]


def codreamer_bin() -> str:
    """The `codreamer` console script of this interpreter's environment."""
    return str(Path(sys.executable).parent / "codreamer")


def run_cli(
    *args: str,
    cwd: Path = REPO,
    base: dict[str, str] | None = None,
    timeout: float = 120,
    script: bool = False,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """Run the CLI to its end; stdout and stderr captured as text. The child's
    environment is `base` (default: `clean_env()`, or `bare_env(home)` for what a
    newcomer's shell has) with `env` on top; `script` runs the console script."""
    argv = [codreamer_bin(), *args] if script else codreamer_argv(*args)
    return subprocess.run(
        argv,
        cwd=cwd,
        env={**(clean_env() if base is None else base), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
