"""Settings: the documented variables, empty values, and .env.example kept complete."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import AliasChoices

from codreamer.config import Settings
from web.config import WebSettings

REPO = Path(__file__).resolve().parents[1]


def _env_names(cls: type) -> set[str]:
    names: set[str] = set()
    for f in cls.model_fields.values():
        alias = f.validation_alias
        names |= set(alias.choices) if isinstance(alias, AliasChoices) else {alias}
    return names


def test_env_example_lists_every_variable() -> None:
    text = (REPO / ".env.example").read_text()
    listed = {
        line.split("=", 1)[0] for line in text.splitlines() if line and not line.startswith("#")
    }
    mentioned = listed | {
        n.strip()
        for line in text.splitlines()
        if line.startswith("# also accepted:")
        for n in line.split(":", 1)[1].split(",")
    }
    missing = (_env_names(Settings) | _env_names(WebSettings)) - mentioned
    assert not missing, f".env.example lacks {sorted(missing)}"


def test_empty_values_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODREAMER_API_KEY", "")
    monkeypatch.setenv("FRONTEND_URL", "")
    s = Settings()
    assert s.api_key is None and s.frontend_url is None


def test_original_names_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUM_ITERS", "7")
    monkeypatch.setenv("NEXT_PUBLIC_CODREAMER_API_URL", "http://api.example:8000")
    s = Settings()
    assert s.num_iters == 7 and s.api_url == "http://api.example:8000"
    assert WebSettings().api_url == "http://api.example:8000"


def test_data_dir_defaults_to_the_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CODREAMER_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # wherever the command runs from
    assert (Settings().data_dir / "graph.json").is_file()
