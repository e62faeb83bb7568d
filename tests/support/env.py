"""Environments for the processes a test starts: nothing from the developer's shell
that would change what the child does, the checkout importable, and what the test
sets on top."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.paths import DATA, REPO

# Variables a developer's shell may hold that would change what a child process does.
SETTING_PREFIXES = ("CODREAMER_", "FRONTEND", "OPENAI_", "ART_", "WANDB_", "WEAVE_", "LITELLM_")


def clean_env(**overrides: str) -> dict[str, str]:
    """This process's environment without any CoDreamer, LLM or tracing setting, data
    from the repo, plus `overrides`. Run the CLI with a temp cwd so that no developer
    `.env` is read either."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(SETTING_PREFIXES) and k not in ("NUM_ITERS", "DEPTH")
    }
    env["CODREAMER_DATA_DIR"] = str(DATA)
    # tests.support.ready runs in the child; the checkout precedes site-packages.
    env["PYTHONPATH"] = str(REPO)
    env.update(overrides)
    return env


def bare_env(home: Path, **overrides: str) -> dict[str, str]:
    """What a newcomer's fresh shell has: a PATH, a HOME (`home`), nothing else."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "PYTHONPATH": str(REPO), **overrides}
