"""The `ruler` judge: ART's RULER over LiteLLM's base-URL option, against the loopback
server. Needs the `art` extra (`uv sync --extra art`; .ci/run installs it)."""

from __future__ import annotations

import json
import os

import pytest

from codreamer.config import Settings
from codreamer.errors import ConfigError, JudgeError
from codreamer.judge.base import make_judge
from codreamer.judge.ruler import RulerJudge, litellm_model
from codreamer.loaders import load_graph, resolve_scenario
from codreamer.models import FinalEmail
from codreamer.preflight import installed
from tests.support.openai_server import OpenAIServer, Reply, error
from tests.support.paths import REPO

pytestmark = [
    pytest.mark.art,
    pytest.mark.skipif(
        not installed("art") and not os.environ.get("CODREAMER_TEST_REQUIRE_ART"),
        reason="needs the art extra: uv sync --extra art",
    ),
]

GOOD = FinalEmail(
    subject="Priya, an idea",
    body="Hi Priya, a call?",
    citations=["Customer Job", "Product Feature"],
)
BAD = FinalEmail(subject="Hello", body="Buy now!!", citations=["Invented"])


@pytest.fixture(scope="module")
def store():
    return load_graph(REPO / "data" / "graph.json", 10_000)


@pytest.fixture(scope="module")
def scenario():
    return resolve_scenario(None, Settings(_env_file=None, data_dir=REPO / "data"))


def ruler(srv, store) -> RulerJudge:
    return RulerJudge(store, "judge-m", srv.url, None, max_retries=0)


def test_ruler_scores_a_group_through_the_base_url(store, scenario):
    with OpenAIServer() as srv:
        out = ruler(srv, store).score_group([GOOD, BAD, GOOD], scenario)
        (req,) = srv.chat_requests("judge")
    # Duplicates are sent once and share a score; the rest ranked by the server.
    assert [j.total for j in out] == [0.8, 0.7, 0.8]
    assert set(out[0].criteria) == {"ruler"} and out[0].criteria["ruler"].weight == 1.0
    assert out[0].criteria["ruler"].reason == "explanation looks fine"
    assert req["model"] == "judge-m"  # LiteLLM strips the openai/ provider prefix
    assert req["response_format"]["type"] == "json_schema"
    prompt = json.dumps(req["messages"])
    assert "NOT IN GRAPH" in prompt and "<trajectory id=" in prompt


def test_scores_out_of_range_are_clamped(store, scenario):
    scores = {
        "scores": [
            {"trajectory_id": "1", "explanation": "great", "score": 1.7},
            {"trajectory_id": "2", "explanation": "poor", "score": -0.2},
        ]
    }
    with OpenAIServer() as srv:
        srv.push(Reply(message={"role": "assistant", "content": json.dumps(scores)}))
        out = ruler(srv, store).score_group([GOOD, BAD], scenario)
    assert [j.total for j in out] == [1.0, 0.0]
    assert out[1].criteria["ruler"].reason == "poor"


@pytest.mark.parametrize(
    "reply", [error(500), Reply(message={"role": "assistant", "content": '{"scores": []}'})]
)
def test_a_ruler_failure_is_a_judge_error(store, scenario, reply):
    with OpenAIServer() as srv:
        srv.push(*[reply] * 4)
        with pytest.raises(JudgeError, match="ruler judge"):
            ruler(srv, store).score_group([GOOD, BAD], scenario)


def test_make_judge_and_model_names(store, monkeypatch):
    for key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CODREAMER_JUDGE_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    s = Settings(
        _env_file=None, OPENAI_BASE_URL="http://127.0.0.1:9/v1", CODREAMER_JUDGE_MODEL="qwen"
    )
    j = make_judge("ruler", store, s)
    assert isinstance(j, RulerJudge) and j.judge_model == "openai/qwen"
    assert j.litellm_params["api_base"] == "http://127.0.0.1:9/v1"
    assert litellm_model("anthropic/claude") == "anthropic/claude"
    with pytest.raises(ConfigError, match="judge ruler needs"):
        make_judge("ruler", store, Settings(_env_file=None))
