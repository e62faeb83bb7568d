"""Shared fixtures: paths to the repo's data and the reference graphs beside the checkout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.paths import KG, REPO


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_kg() -> Path:
    assert KG.is_dir(), f"reference graphs not found at {KG}"
    return KG


@pytest.fixture(scope="session")
def sample_graph_json() -> list[dict]:
    return json.loads((REPO / "data" / "graph.json").read_text())


@pytest.fixture
def clean_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings built in-process must not pick up a developer's LLM endpoint or keys."""
    import os

    for key in list(os.environ):
        if key.startswith(("OPENAI_", "CODREAMER_", "ART_", "WANDB_", "WEAVE_")):
            monkeypatch.delenv(key)


@pytest.fixture(scope="module")
def store():  # type: ignore[no-untyped-def]
    """The sample graph (modules may define their own `store`)."""
    from codreamer.loaders import load_graph

    return load_graph(REPO / "data" / "graph.json", 10_000)


@pytest.fixture(scope="module")
def scenario():  # type: ignore[no-untyped-def]
    """The first sample scenario (modules may define their own `scenario`)."""
    from codreamer.config import Settings
    from codreamer.loaders import resolve_scenario

    return resolve_scenario(None, Settings(CODREAMER_DATA_DIR=REPO / "data"))
