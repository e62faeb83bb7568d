"""Shared fixtures: paths to the repo's data and the reference graphs beside the checkout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_KG = REPO.parent / "shared" / "kg"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_kg() -> Path:
    assert SHARED_KG.is_dir(), f"reference graphs not found at {SHARED_KG}"
    return SHARED_KG


@pytest.fixture(scope="session")
def sample_graph_json() -> list[dict]:
    return json.loads((REPO / "data" / "graph.json").read_text())
