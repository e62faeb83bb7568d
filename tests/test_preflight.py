"""Misconfiguration fails fast, before a run exists, with one clear line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codreamer.config import Settings
from codreamer.errors import ConfigError
from codreamer.preflight import check_policy, check_ready, has_cuda_gpu, installed
from tests.support.cli import codreamer_bin
from tests.support.env import clean_env


@pytest.fixture(autouse=True)
def _no_llm_env(monkeypatch):
    import os

    for key in list(os.environ):
        if key.startswith(("OPENAI_", "CODREAMER_", "ART_", "WANDB_", "WEAVE_")):
            monkeypatch.delenv(key)


def settings(**kw) -> Settings:
    return Settings(_env_file=None, **kw)


class Cfg:
    def __init__(self, policy="embedded", judge="rubric"):
        self.policy, self.judge = policy, judge


CASES = [
    (Cfg("openai"), {}, "policy openai needs OPENAI_BASE_URL"),
    (Cfg("art"), {"ART_BACKEND": "serverless"}, "ART_BACKEND=serverless needs WANDB_API_KEY"),
    (Cfg(judge="llm"), {}, "judge llm needs OPENAI_BASE_URL or CODREAMER_JUDGE_BASE_URL"),
    (Cfg(judge="ruler"), {}, "judge ruler needs OPENAI_BASE_URL or CODREAMER_JUDGE_BASE_URL"),
]


@pytest.mark.parametrize(("config", "env", "message"), CASES)
def test_each_misconfiguration_names_what_to_set(config, env, message):
    if config.policy == "art" and not installed("art"):
        message = "policy art needs the art extra"
    with pytest.raises(ConfigError) as info:
        check_ready(config, settings(**env))
    text = str(info.value)
    assert text.startswith(message)
    assert "\n" not in text and len(text) < 80 and "[" not in text


def test_good_configurations_pass():
    check_ready(Cfg("openai", "llm"), settings(OPENAI_BASE_URL="http://127.0.0.1:1/v1"))
    check_ready(Cfg("openai"), settings(OPENAI_API_KEY="sk-x"))  # the official endpoint
    check_ready(Cfg(judge="llm"), settings(CODREAMER_JUDGE_BASE_URL="http://127.0.0.1:1/v1"))
    if installed("art"):
        check_ready(Cfg("art"), settings(ART_BACKEND="serverless", WANDB_API_KEY="k"))


@pytest.mark.skipif(has_cuda_gpu(), reason="this machine has a GPU")
@pytest.mark.skipif(not installed("art"), reason="needs the art extra: uv sync --extra art")
def test_art_local_without_a_gpu():
    with pytest.raises(ConfigError, match="^ART_BACKEND=local needs a CUDA GPU, none found"):
        check_policy("art", settings())


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"CODREAMER_POLICY": "art", "ART_BACKEND": "serverless"},
            "ART_BACKEND=serverless needs WANDB_API_KEY",
        ),
        (
            {"CODREAMER_JUDGE": "ruler"},
            "judge ruler needs OPENAI_BASE_URL or CODREAMER_JUDGE_BASE_URL",
        ),
    ],
)
def test_cli_fails_fast_with_one_line(tmp_path: Path, env, line):
    if env.get("CODREAMER_POLICY") == "art" and not installed("art"):
        line = "policy art needs the art extra: uv sync --extra art"
    p = subprocess.run(
        [codreamer_bin(), "learn-loop", "1", "2"],
        cwd=tmp_path,
        env=clean_env(CODREAMER_RESULTS_DIR=str(tmp_path / "r"), **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [line]
    assert not (tmp_path / "r" / "runs").exists()
