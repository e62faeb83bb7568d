"""The `llm` judge against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
import subprocess

import pytest

from codreamer.config import Settings
from codreamer.errors import ConfigError, JudgeError
from codreamer.judge.base import make_judge
from codreamer.judge.llm import LLMJudge
from codreamer.judge.rubric import CRITERIA
from codreamer.judge.rubric.total import default_total
from codreamer.llm.client import ChatClient
from codreamer.models import FinalEmail, Sender
from tests.support.cli import codreamer_bin
from tests.support.env import clean_env
from tests.support.openai_server import OpenAIServer, Reply, default_brain, error

EMAIL = FinalEmail(
    subject="Priya, an idea for Northfield Dairy",
    body="Hi Priya,\n\nWould you be open to a 20-minute discovery call?\n\nBest,\nSam",
    citations=["Customer Job", "Made Up Node"],
)


# `store` and `scenario` (the sample graph, its first scenario) come from tests/conftest.py.
pytestmark = pytest.mark.usefixtures("clean_llm_env")


def answer(scores: dict[str, float]) -> Reply:
    crit = {n: {"score": scores.get(n, 1.0), "reason": f"{n} reason"} for n in CRITERIA}
    return Reply(message={"role": "assistant", "content": json.dumps({"criteria": crit})})


def judge(srv, store, **kw) -> LLMJudge:
    return LLMJudge(
        store, ChatClient(srv.url, backoff_initial_s=0.01, max_retries=1), "judge-m", **kw
    )


def test_rubric_shaped_result_with_the_rubric_s_arithmetic(store, scenario):
    with OpenAIServer() as srv:
        srv.push(answer({"grounding": 0.2, "argument": 0.5, "sendability": 0.5}))
        (j,) = judge(srv, store).score_group([EMAIL], scenario)
    scores = {n: 1.0 for n in CRITERIA} | {"grounding": 0.2, "argument": 0.5, "sendability": 0.5}
    assert j.total == pytest.approx(default_total().total(scores), abs=1e-6)
    # ...and a better criterion never lowers it (the fitted weights are non-negative).
    assert j.total < default_total().total({n: 1.0 for n in CRITERIA})
    assert set(j.criteria) == set(CRITERIA)
    shares = default_total().shares()
    assert j.criteria["grounding"].weight == round(shares["grounding"], 4)
    assert j.criteria["english"].weight == 0
    assert j.criteria["grounding"].reason == "grounding reason"


def test_sends_a_strict_json_schema_and_the_evidence(store, scenario):
    with OpenAIServer() as srv:
        judge(srv, store).score_group([EMAIL], scenario)
        (req,) = srv.chat_requests("judge")
    rf = req["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is True
    assert rf["json_schema"]["schema"]["properties"]["criteria"]["required"] == list(CRITERIA)
    prompt = req["messages"][1]["content"]
    assert "- Made Up Node: NOT IN GRAPH" in prompt
    system = req["messages"][0]["content"]
    for name in CRITERIA:  # the rubric's own criteria, in words
        assert f"- {name}: " in system
    assert "[Discovery Call]" in system and "order does not matter" in system
    assert store.content("Customer Job") in prompt and "Priya" in prompt
    assert req["model"] == "judge-m" and req["temperature"] == 0.0


def test_the_sender_reaches_the_llm_judge(store, scenario):
    """The judge checks who signs the email, so the sender must be in the prompt."""
    sender = Sender(name="Rosa Lindqvist", company="Frostline", title="AE")
    with OpenAIServer() as srv:
        judge(srv, store).score_group([EMAIL], scenario, sender)
        (req,) = srv.chat_requests("judge")
    assert "Rosa Lindqvist" in req["messages"][1]["content"]


def test_scores_are_clamped(store, scenario):
    with OpenAIServer() as srv:
        srv.push(answer({"grounding": 7.0, "concision": -2.0}))
        (j,) = judge(srv, store).score_group([EMAIL], scenario)
    assert j.criteria["grounding"].score == 1.0 and j.criteria["concision"].score == 0.0


def test_a_group_is_judged_concurrently_in_order(store, scenario):
    emails = [EMAIL.model_copy(update={"subject": f"s{i}"}) for i in range(5)]
    with OpenAIServer() as srv:
        out = judge(srv, store, concurrency=3).score_group(emails, scenario)
        assert len(srv.chat_requests("judge")) == 5
    assert len(out) == 5 and all(0 <= j.total <= 1 for j in out)


def test_an_answer_off_the_schema_is_retried_once_then_a_judge_error(store, scenario):
    with OpenAIServer() as srv:
        srv.push(Reply(message={"role": "assistant", "content": "I think it's great!"}))
        assert judge(srv, store).score_group([EMAIL], scenario)[0].total > 0
        srv.push(*[Reply(message={"role": "assistant", "content": '{"criteria": {}}'})] * 2)
        with pytest.raises(JudgeError, match="does not fit the schema"):
            judge(srv, store).score_group([EMAIL], scenario)


def test_endpoint_failure_is_a_judge_error(store, scenario):
    with OpenAIServer() as srv:
        srv.push(*[error(500)] * 5)
        with pytest.raises(JudgeError, match="HTTP 500"):
            judge(srv, store).score_group([EMAIL], scenario)


def test_make_judge_builds_it_from_settings(store):
    s = Settings(
        _env_file=None, OPENAI_BASE_URL="http://127.0.0.1:9/v1", CODREAMER_JUDGE_MODEL="jm"
    )
    j = make_judge("llm", store, s)
    assert isinstance(j, LLMJudge) and j.model == "jm"
    assert j.client.base_url == "http://127.0.0.1:9/v1"
    own = Settings(
        _env_file=None,
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        CODREAMER_JUDGE_BASE_URL="http://127.0.0.1:8/v1",
    )
    assert make_judge("llm", store, own).client.base_url == "http://127.0.0.1:8/v1"
    with pytest.raises(ConfigError, match="judge llm needs OPENAI_BASE_URL"):
        make_judge("llm", store, Settings(_env_file=None))


def test_a_failing_judge_skips_the_group_and_the_run_goes_on(tmp_path):
    """The judge fails (a 400, not retried) on the iteration's group: the group is
    reported as judge_failed and skipped, and the run still succeeds. (Judge calls:
    the baseline email first, then the group's, then the iteration's email.)"""
    import itertools

    judged = itertools.count(1)

    def brain(body):
        if body.get("response_format") and next(judged) == 2:
            return error(400)
        return default_brain(body)

    with OpenAIServer(brain=brain) as srv:
        p = subprocess.run(
            [codreamer_bin(), "learn-loop", "1", "3", "--json"],
            cwd=tmp_path,
            env=clean_env(
                CODREAMER_POLICY="openai",
                CODREAMER_JUDGE="llm",
                OPENAI_BASE_URL=srv.url,
                CODREAMER_RESULTS_DIR=str(tmp_path),
            ),
            capture_output=True,
            text=True,
            timeout=240,
        )
    assert p.returncode == 0, p.stderr
    (run,) = (tmp_path / "runs").iterdir()
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    assert any("judge_failed" in json.dumps(e) for e in events)
    metrics = json.loads((run / "iter1_rewards_metrics.json").read_text())
    assert metrics["judge_failures"] == 1
    assert json.loads(p.stdout.splitlines()[-1])["status"] == "succeeded"
