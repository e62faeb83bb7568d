"""The `openai` policy against a real OpenAI-compatible server on loopback, scripted
with what real models do; and a whole learn-loop through the CLI, webhook included."""

from __future__ import annotations

import dataclasses
import json
import uuid
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from codreamer.agent.policies.openai_policy import NUDGE, REMINDER, LLMDecision, OpenAIPolicy
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.errors import ConfigError, PolicyError
from codreamer.graph.scores import NodeScores
from codreamer.llm.client import ChatClient
from tests.support.cli import run_cli
from tests.support.openai_server import OpenAIServer, Reply, error, text, tool_calls, walker_turn
from tests.support.receiver import Receiver

# `store` and `scenario` (the sample graph, its first scenario) come from tests/conftest.py.
# The installed `codreamer` script, as a user runs it.
cli = partial(run_cli, script=True, timeout=240)

pytestmark = pytest.mark.usefixtures("clean_llm_env")


@pytest.fixture
def server():
    with OpenAIServer() as srv:
        yield srv


def make_policy(store, srv, **kw) -> OpenAIPolicy:
    return OpenAIPolicy(store, ChatClient(srv.url, backoff_initial_s=0.01), "test-model", **kw)


def run(policy, store, scenario, depth=5, greedy=False, seed=0):
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, depth)
    meta = TrajectoryMeta(trajectory_id="t", scenario_id=scenario.id, iteration=1, policy="openai")
    return rollout(policy, env, np.random.default_rng(seed), meta, greedy=greedy)


def tool_msgs(traj):
    return [m for m in traj.messages if m["role"] == "tool"]


def test_a_tidy_model_walks_the_graph_and_finalizes(server, store, scenario):
    traj = run(make_policy(store, server), store, scenario)
    email = traj.final_email
    assert email.citations[0] == "Customer Job" and "Product Feature" in email.citations[-1]
    assert not traj.metadata.auto_finalized and traj.metadata.errors == []
    assert traj.metadata.hops == len(email.citations) - 1
    req = server.chat_requests("agent")[0]
    assert [t["function"]["name"] for t in req["tools"]] == [
        "get_connected_nodes",
        "get_relevant_context",
        "finalize_email",
    ]
    assert req["temperature"] == 1.0 and req["logprobs"] is True
    # The conversation the model saw is exactly the trajectory's, turn by turn.
    last = server.chat_requests("agent")[-1]["messages"]
    assert last == traj.messages[: len(last)]
    # One raw-choice decision per assistant turn, with the server's token log-probs.
    assert all(isinstance(d, LLMDecision) and d.choice for d in traj.decisions)
    assert traj.logprobs == [pytest.approx(-0.75)] * len(traj.decisions)


def test_tool_call_ids_are_ours_so_a_seeded_rollout_repeats_exactly(store, scenario):
    # llama.cpp's server makes a random id for each tool call; the same seeded
    # rollout must still write the same trajectory.
    def random_ids(body):
        reply = walker_turn(body)
        for c in (reply.message or {}).get("tool_calls") or []:
            c["id"] = uuid.uuid4().hex
        return reply

    with OpenAIServer(brain=random_ids) as srv:
        a, b = (run(make_policy(store, srv), store, scenario, seed=4) for _ in range(2))
    assert a.messages == b.messages
    calls = [c["id"] for m in a.messages if m["role"] == "assistant" for c in m["tool_calls"]]
    assert len(calls) >= 2 and len(set(calls)) == len(calls)
    assert {m["tool_call_id"] for m in a.messages if m["role"] == "tool"} <= set(calls)
    # The raw choices kept for training name the same calls as the history.
    kept = [c["id"] for d in a.decisions if d.choice for c in d.choice["message"]["tool_calls"]]
    assert kept == calls


def test_greedy_uses_temperature_zero(server, store, scenario):
    run(make_policy(store, server), store, scenario, greedy=True)
    assert {r["temperature"] for r in server.chat_requests("agent")} == {0.0}


def test_no_logprobs_from_the_server_records_zero(store, scenario):
    with OpenAIServer() as srv:
        traj = run(make_policy(store, srv, logprobs=False), store, scenario)
        assert "logprobs" not in srv.requests[0]
    assert traj.logprobs and set(traj.logprobs) == {0.0}


def test_malformed_arguments_are_replayed_as_valid_json_and_quoted_back(server, store, scenario):
    # A runaway argument cut off by max_tokens: what a small model sends for real.
    broken = '{"node_id": "Customer Job' + "1234567890" * 40
    server.push(tool_calls(("get_relevant_context", broken)))
    traj = run(make_policy(store, server), store, scenario)
    first = traj.messages[2]["tool_calls"][0]["function"]
    assert first["arguments"] == "{}"  # valid JSON in the history, never the broken text
    answer = json.loads(tool_msgs(traj)[0]["content"])
    assert "malformed JSON" in answer["error"]
    assert answer["received"].startswith('{"node_id": "Customer Job12345')  # quoted back
    assert len(answer["received"]) <= 301  # bounded
    assert any("malformed JSON" in e for e in traj.metadata.errors)
    assert server.refused == []  # no request a real server would refuse
    assert traj.final_email.citations and not traj.metadata.auto_finalized  # recovered


def test_unknown_tool_is_answered_with_an_error(server, store, scenario):
    server.push(tool_calls(("search_web", {"q": "cold chain"})))
    traj = run(make_policy(store, server), store, scenario)
    assert "unknown tool 'search_web'" in json.loads(tool_msgs(traj)[0]["content"])["error"]
    assert not traj.metadata.auto_finalized


def test_no_tool_call_nudges_once_then_auto_finalizes_at_the_cap(store, scenario):
    with OpenAIServer(brain=lambda body: text("Happy to help! Here is my plan...")) as srv:
        traj = run(make_policy(store, srv), store, scenario, depth=3)
        reqs = srv.chat_requests("agent")
        assert srv.refused == []
    nudges = [m for m in reqs[-1]["messages"] if m.get("content") == NUDGE]
    assert len(nudges) == 1
    # Every request ends with a user (or tool) message: never two assistants in a row.
    for r in reqs:
        roles = [m["role"] for m in r["messages"]]
        assert roles[-1] != "assistant"
        assert all(not (a == b == "assistant") for a, b in zip(roles, roles[1:], strict=False))
    reminders = [m for m in traj.messages if m.get("content") == REMINDER]
    assert len(reminders) == 2 and all(m["role"] == "user" for m in reminders)
    assert len(reqs) == 3 + 1  # depth + 1 exploring turns, then the driver finalizes
    assert traj.metadata.auto_finalized
    assert traj.final_email.body  # composed, not empty
    assert traj.decisions[-1].choice is None  # the composed turn is ours, not the model's
    # the trajectory records the conversation the model saw, nudge included
    recorded = [m for m in traj.messages if m.get("content") == NUDGE]
    assert len(recorded) == 1 and recorded[0]["role"] == "user"
    assert reqs[-1]["messages"] == traj.messages[: len(reqs[-1]["messages"])]


def test_finalize_without_citations_is_filled_from_evidence(server, store, scenario):
    server.push(
        tool_calls(
            ("get_relevant_context", {"node_id": "Customer Job"}),
            ("get_connected_nodes", {"node_id": "Customer Job"}),
        ),
        tool_calls(("finalize_email", {"subject": "Hi", "body": "Hello Priya, a call?"})),
    )
    traj = run(make_policy(store, server), store, scenario)
    assert traj.final_email.citations == ["Customer Job"]
    assert any("without citations" in e for e in traj.metadata.errors)
    sent = json.loads(traj.messages[-2]["tool_calls"][0]["function"]["arguments"])
    assert "citations" not in sent  # the trajectory keeps what the model actually sent


def test_unknown_citations_are_kept(server, store, scenario):
    server.push(
        tool_calls(
            (
                "finalize_email",
                {
                    "subject": "Hi",
                    "body": "Hello Priya",
                    "citations": ["Customer Job", "Made Up Node"],
                },
            )
        )
    )
    traj = run(make_policy(store, server), store, scenario)
    assert traj.final_email.citations == ["Customer Job", "Made Up Node"]


def test_finalize_with_an_empty_body_is_refused_and_retried(server, store, scenario):
    server.push(tool_calls(("finalize_email", {"subject": "Hi", "body": "", "citations": []})))
    traj = run(make_policy(store, server), store, scenario)
    assert "non-empty body" in json.loads(tool_msgs(traj)[0]["content"])["error"]
    assert traj.final_email.body


def test_out_of_turns_composes_from_gathered_evidence(store, scenario):
    def wanderer(body):  # explores forever, never finalizes
        reply = walker_turn(body, max_hops=99)
        return (
            reply
            if "finalize_email" not in json.dumps(reply.message)
            else tool_calls(("get_connected_nodes", {"node_id": "Customer Job"}))
        )

    with OpenAIServer(brain=wanderer) as srv:
        traj = run(make_policy(store, srv), store, scenario, depth=2)
    assert traj.metadata.auto_finalized
    cites = traj.final_email.citations
    assert cites[0] == "Customer Job" and len(cites) == 3  # the seed + 2 hops it read
    assert traj.final_email.body.startswith(("Hi Priya,", "Hello Priya,"))


def test_transient_errors_are_retried_within_a_rollout(server, store, scenario):
    server.push(error(429, retry_after="0"), error(503))
    traj = run(make_policy(store, server), store, scenario)
    assert traj.final_email.citations and not traj.metadata.auto_finalized


def test_a_dead_endpoint_fails_the_rollout_clearly(store, scenario):
    srv = OpenAIServer()
    srv._sock.close()
    policy = OpenAIPolicy(store, ChatClient(srv.url, max_retries=0), "m")
    with pytest.raises(PolicyError, match="openai policy"):
        run(policy, store, scenario)


def test_group_rollouts_run_concurrently_but_bounded(store, scenario):
    def slow(body):
        return dataclasses.replace(walker_turn(body), delay_s=0.15)

    with OpenAIServer(brain=slow) as srv:
        policy = make_policy(store, srv, concurrency=3)
        env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, 5)
        metas = [
            TrajectoryMeta(trajectory_id=f"t{j}", scenario_id=scenario.id, iteration=1, index=j)
            for j in range(6)
        ]
        trajs = policy.rollout_group(env, np.random.default_rng(0), metas)
        assert srv.max_inflight == 3
    assert [t.id for t in trajs] == [f"t{j}" for j in range(6)]
    assert all(t.final_email.citations for t in trajs)


def test_state_is_the_prompt_without_secrets_and_restores_it(store):
    from codreamer.agent.policies.prompt import Prompt

    policy = OpenAIPolicy(store, ChatClient("http://127.0.0.1:9/v1", "sk-secret"), "m")
    assert not hasattr(policy, "train_step")  # policies act; trainers learn
    state = policy.state_dict()
    assert "sk-secret" not in json.dumps(state)
    other = OpenAIPolicy(
        store,
        ChatClient("http://127.0.0.1:9/v1"),
        "m",
        prompt=Prompt(version=3, sections={"role": "Be brief."}),
    )
    policy.load_state_dict(other.state_dict())
    assert policy.prompt.version == 3 and policy.system_prompt() == "Be brief."


def test_every_request_carries_max_tokens(server, store, scenario):
    run(make_policy(store, server, max_tokens=77), store, scenario)
    assert {r["max_tokens"] for r in server.chat_requests("agent")} == {77}


def test_from_settings_without_an_endpoint_is_a_config_error(store):
    from codreamer.config import Settings

    with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
        OpenAIPolicy.from_settings(store, Settings(_env_file=None))


# --- the acceptance run, through the CLI ---------------------------------------------


def run_dir(results: Path) -> Path:
    (d,) = (results / "runs").iterdir()
    return d


def test_learn_loop_on_the_openai_policy_writes_what_embedded_writes(tmp_path, server):
    with Receiver() as receiver:
        res_llm = tmp_path / "llm"
        p = cli(
            "learn-loop",
            "2",
            "5",
            "--json",
            cwd=tmp_path,
            CODREAMER_POLICY="openai",
            OPENAI_BASE_URL=server.url,
            CODREAMER_RESULTS_DIR=str(res_llm),
            FRONTEND_URL=receiver.url,
        )
        assert p.returncode == 0, p.stderr
        received = receiver.wait_for(4)
    summary = json.loads(p.stdout.strip().splitlines()[-1])
    assert summary["status"] == "succeeded" and summary["final_email"]["citations"]
    # Each event is delivered on its own (DESIGN §7): the last iteration and the final,
    # recorded milliseconds apart, may arrive in either order.
    order = ["baseline", "iteration", "final"]
    stages = sorted((r.stage for r in received), key=order.index)
    assert stages == ["baseline", "iteration", "iteration", "final"]
    assert server.chat_requests("agent")

    res_emb = tmp_path / "embedded"
    q = cli("learn-loop", "2", "5", "--json", cwd=tmp_path, CODREAMER_RESULTS_DIR=str(res_emb))
    assert q.returncode == 0, q.stderr
    llm_files = {f.name for f in run_dir(res_llm).iterdir()}
    emb_files = {f.name for f in run_dir(res_emb).iterdir()}
    prompts = {f"iter{k}_prompt.json" for k in range(3)}  # an LLM policy's prompt versions
    assert llm_files - {"webhooks.jsonl"} == (emb_files - {"webhooks.jsonl"}) | prompts
    assert "webhooks.jsonl" in llm_files
    policy = json.loads((run_dir(res_llm) / "iter2_policy.json").read_text())
    assert policy["policy"] == "openai" and policy["trainer_state"]["trainer"] == "prompt"
    assert policy["train"]["prompt_version"] == 2.0
    assert server.refused == []


def test_learn_loop_without_an_endpoint_fails_fast_with_one_line(tmp_path):
    p = cli(
        "learn-loop",
        "2",
        "5",
        cwd=tmp_path,
        CODREAMER_POLICY="openai",
        CODREAMER_RESULTS_DIR=str(tmp_path / "r"),
    )
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        "policy openai needs OPENAI_BASE_URL (and OPENAI_API_KEY if required)"
    ]
    assert not (tmp_path / "r" / "runs").exists() or not any((tmp_path / "r" / "runs").iterdir())


def test_odd_tool_call_shapes(server, store, scenario):
    odd = Reply(
        message={
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_relevant_context",
                        "arguments": {"node_id": "Customer Job"},
                    },
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_connected_nodes", "arguments": '["Customer Job"]'},
                },
            ],
        }
    )
    server.push(odd)
    traj = run(make_policy(store, server), store, scenario)
    first = traj.messages[2]["tool_calls"]
    assert first[0]["id"]  # a missing id is made up, so the tool answer can refer to it
    assert json.loads(first[0]["function"]["arguments"]) == {"node_id": "Customer Job"}
    answers = tool_msgs(traj)
    assert json.loads(answers[0]["content"])["node_id"] == "Customer Job"  # object args ran
    assert "must be a JSON object" in json.loads(answers[1]["content"])["error"]


def test_the_model_is_told_who_sends_the_email(server, store, scenario):
    from codreamer.models import Sender

    sender = Sender(name="Dana Whitfield", company="Frostline", title="Account Executive")
    env = RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, 5, sender)
    meta = TrajectoryMeta(trajectory_id="t", scenario_id=scenario.id, iteration=1, policy="openai")
    rollout(make_policy(store, server), env, np.random.default_rng(0), meta)
    system, user = server.chat_requests("agent")[0]["messages"][:2]
    assert "Dana Whitfield, Account Executive at Frostline" in system["content"]
    assert '"name": "Dana Whitfield"' in user["content"]
