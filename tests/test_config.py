"""Settings: the documented variables, empty values, and .env.example kept complete."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import AliasChoices

from codreamer.config import Settings
from tests.support.paths import REPO
from web.config import WebSettings


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


def test_frontend_url_must_be_an_http_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTEND_URL", "ftp://example.test/hook")
    with pytest.raises(ValueError, match="http:// or https://"):
        Settings(_env_file=None)
    monkeypatch.setenv("FRONTEND_URL", "http://127.0.0.1:3000")
    settings = Settings(_env_file=None)
    assert settings.frontend_url == "http://127.0.0.1:3000"  # as given, no slash added
    assert str(settings.webhooks.url).startswith("http://127.0.0.1:3000")


def test_slices_carry_their_part_of_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODREAMER_WEBHOOK_SCHEDULE", "0, 1.5,3")
    monkeypatch.setenv("CODREAMER_LOG_LEVEL", "debug")
    monkeypatch.setenv("CODREAMER_BROKER_URL", "redis://127.0.0.1:1/0")
    settings = Settings(_env_file=None)
    assert settings.webhooks.schedule == (0.0, 1.5, 3.0)
    assert settings.logging.level == "DEBUG" and not settings.logging.json_lines
    assert settings.cluster.broker_url == "redis://127.0.0.1:1/0"
    assert settings.llm.model == settings.openai_model
    monkeypatch.setenv("CODREAMER_LOG_LEVEL", "loud")
    with pytest.raises(ValueError, match="CODREAMER_LOG_LEVEL"):
        Settings(_env_file=None)


def test_llm_and_cluster_slices_copy_the_flat_settings_they_name() -> None:
    """Each slice field comes from its one flat setting: a renamed one (api_key from
    openai_api_key), a prefixed one (timeout_s from llm_timeout_s, queue from
    celery_queue) or one of the same name (judge_max_tokens, run_lease_ttl_s)."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        openai_api_key="sk-test",
        openai_model="model-a",
        llm_timeout_s=7.0,
        judge_max_tokens=555,
        broker_url="redis://127.0.0.1:1/0",
        celery_queue="runs-q",
        celery_visibility_timeout_s=99,
        run_lease_ttl_s=3.0,
    )
    llm, cluster = settings.llm, settings.cluster
    assert (llm.api_key, llm.model, llm.timeout_s, llm.judge_max_tokens) == (
        "sk-test", "model-a", 7.0, 555,
    )  # fmt: skip
    assert (cluster.broker_url, cluster.queue, cluster.visibility_timeout_s) == (
        "redis://127.0.0.1:1/0", "runs-q", 99,
    )  # fmt: skip
    assert cluster.run_lease_ttl_s == 3.0 and cluster.gpu_queue == settings.celery_gpu_queue
