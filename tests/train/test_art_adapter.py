"""ART adapter: lossless trajectory conversion with ART's own types, and the `art`
policy exercised up to the backend boundary (a recording backend stands in for the
GPU / W&B service; the model's inference endpoint is the loopback test server).
Needs the `art` extra (`uv sync --extra art`; .ci/run installs it)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

from codreamer.agent.policies.embedded import EmbeddedPolicy
from codreamer.agent.policies.openai_policy import LLMDecision, OpenAIPolicy
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.config import Settings
from codreamer.errors import ConfigError
from codreamer.graph.scores import NodeScores
from codreamer.judge.rubric import RubricJudge
from codreamer.llm.client import ChatClient
from codreamer.loaders import load_graph, resolve_scenario
from codreamer.preflight import has_cuda_gpu, installed
from codreamer.runs.spec import RunSpec
from tests.support.openai_server import OpenAIServer, text
from tests.support.paths import REPO

pytestmark = [
    pytest.mark.art,
    pytest.mark.skipif(
        not installed("art") and not os.environ.get("CODREAMER_TEST_REQUIRE_ART"),
        reason="needs the art extra: uv sync --extra art",
    ),
]


@pytest.fixture(scope="module")
def art():
    from codreamer.train.art_adapter import load_art

    return load_art()


@pytest.fixture(scope="module")
def store():
    return load_graph(REPO / "data" / "graph.json", 10_000)


@pytest.fixture(scope="module")
def scenario():
    return resolve_scenario(None, Settings(_env_file=None, data_dir=REPO / "data"))


def env_for(store, scenario, depth=4):
    return RolloutEnv(store, AgentTools(store, NodeScores(store.nodes)), scenario, depth)


def judged(traj, store, scenario, reward=None):
    j = RubricJudge(store).judge(traj.final_email, scenario)
    traj.judgement = j
    traj.reward = j.total if reward is None else reward
    traj.reward_components = {"judge": j.total, "human": 0.25}
    return traj


def meta(i=0, **kw):
    return TrajectoryMeta(trajectory_id=f"i1-g0-t{i}", scenario_id="s", iteration=1, index=i, **kw)


def same(a, b) -> None:
    assert a.model_dump() == b.model_dump()
    assert a.logprobs == b.logprobs and a.reward == b.reward


def test_embedded_trajectory_round_trips(art, store, scenario):
    from codreamer.train.art_adapter import from_art_trajectory, to_art_trajectory

    t = rollout(EmbeddedPolicy(store), env_for(store, scenario), np.random.default_rng(3), meta())
    judged(t, store, scenario)
    at = to_art_trajectory(t)
    assert isinstance(at, art.Trajectory)
    assert at.reward == t.reward and at.metrics["reward/human"] == 0.25
    assert at.metrics["judge/grounding"] == t.judgement.criteria["grounding"].score
    assert at.metadata["trajectory_id"] == "i1-g0-t0" and at.metadata["hops"] == t.metadata.hops
    assert at.tools and at.tools[0]["function"]["name"] == "get_connected_nodes"
    # Assistant turns are Choices: the part ART trains on.
    from openai.types.chat.chat_completion import Choice

    kinds = [type(x) is Choice for x in at.messages_and_choices]
    assert kinds == [m["role"] == "assistant" for m in t.messages]
    same(from_art_trajectory(at), t)


def test_unjudged_trajectory_keeps_reward_none(art, store, scenario):
    from codreamer.train.art_adapter import from_art_trajectory, to_art_trajectory

    t = rollout(
        EmbeddedPolicy(store),
        env_for(store, scenario),
        np.random.default_rng(1),
        meta(style={"subject": 1}, errors=["x"]),
    )
    at = to_art_trajectory(t)
    assert at.reward == 0.0
    back = from_art_trajectory(at)
    assert back.reward is None and back.judgement is None
    same(back, t)


def test_llm_trajectory_round_trips_with_the_model_s_token_logprobs(art, store, scenario):
    from codreamer.train.art_adapter import from_art_trajectory, to_art_trajectory

    with OpenAIServer() as srv:
        policy = OpenAIPolicy(store, ChatClient(srv.url), "m")
        t = rollout(policy, env_for(store, scenario, depth=1), np.random.default_rng(0), meta())
    # An odd message key that ART's TypedDicts would drop must still come back.
    t.messages[1] = {**t.messages[1], "name": "prospect-brief"}
    judged(t, store, scenario)
    at = to_art_trajectory(t)
    choices = [x for x in at.messages_and_choices if not isinstance(x, dict)]
    assert choices and all(c.logprobs and c.logprobs.content for c in choices)
    assert [lp.logprob for lp in choices[0].logprobs.content] == [-0.25, -0.5]
    same(from_art_trajectory(at), t)


def test_a_composed_turn_is_not_trainable(art, store, scenario):
    from codreamer.train.art_adapter import from_art_trajectory, to_art_trajectory

    with OpenAIServer(brain=lambda body: text("no tools for me")) as srv:
        policy = OpenAIPolicy(store, ChatClient(srv.url), "m")
        t = rollout(policy, env_for(store, scenario, depth=1), np.random.default_rng(0), meta())
    assert t.metadata.auto_finalized and t.decisions[-1] == LLMDecision(None)
    at = to_art_trajectory(t)
    assert isinstance(at.messages_and_choices[-2], dict)  # the composed finalize_email turn
    back = from_art_trajectory(at)
    same(back, t)
    assert back.decisions[-1] == LLMDecision(None)


def test_groups_round_trip_and_art_side_rewards_win(art, store, scenario):
    from codreamer.train.art_adapter import from_art_groups, to_art_groups

    pol = EmbeddedPolicy(store)
    groups = [
        [
            judged(
                rollout(pol, env_for(store, scenario), np.random.default_rng(i), meta(i)),
                store,
                scenario,
            )
            for i in range(3)
        ]
    ]
    ag = to_art_groups(groups)
    assert isinstance(ag[0], art.TrajectoryGroup) and len(ag[0]) == 3
    assert ag[0].metadata == {"group": 0, "scenario_id": "s"}
    back = from_art_groups(ag)
    for a, b in zip(back[0], groups[0], strict=True):
        same(a, b)
    ag[0].trajectories[1].reward = 0.123  # e.g. RULER rescored it on the ART side
    assert from_art_groups(ag)[0][1].reward == 0.123


# --- the art policy, up to the backend boundary ------------------------------------------


class RecordingBackend:
    """Implements what ART's TrainableModel and our policy call on a backend; inference
    is served by the loopback test server, training is recorded, steps count up."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.step = 0
        self.trained: list[tuple[list[Any], dict[str, Any]]] = []

    async def register(self, model: Any) -> None:
        self.registered = model.name

    async def _prepare_backend_for_training(self, model: Any, config: Any) -> tuple[str, str]:
        return self.base_url, "art-key"

    def _model_inference_name(self, model: Any, step: int | None = None) -> str:
        return f"{model.name}@{self.step if step is None else step}"

    async def _get_step(self, model: Any) -> int:
        return self.step

    async def train(self, model: Any, groups: Any, **kwargs: Any) -> Any:
        import art

        self.trained.append((list(groups), kwargs))
        self.step += 1
        return art.TrainResult(step=self.step, metrics={"loss": 0.5})

    async def close(self) -> None:
        pass


def test_art_policy_acts_and_the_art_trainer_trains_and_resumes(art, store, scenario, tmp_path):
    from codreamer.agent.policies.art_policy import ArtPolicy
    from codreamer.train.art import ArtTrainer

    with OpenAIServer() as srv:
        backend = RecordingBackend(srv.url)
        model = art.TrainableModel(
            name="cd-test", project="p", base_model="Qwen/Qwen2.5-0.5B", base_path=str(tmp_path)
        )
        policy = ArtPolicy.create(store, model, backend, concurrency=2)
        trainer = ArtTrainer(learning_rate=1e-5)
        assert backend.registered == "cd-test" and policy.step == 0
        assert not hasattr(policy, "train_step")  # policies act; trainers learn

        env = env_for(store, scenario)
        metas = [meta(i, policy="art") for i in range(4)]
        group = [
            judged(t, store, scenario, reward=0.2 * i)
            for i, t in enumerate(policy.rollout_group(env, np.random.default_rng(0), metas))
        ]
        reqs = srv.chat_requests("agent")
        assert {r["model"] for r in reqs} == {"cd-test@0"} and all(r["logprobs"] for r in reqs)
        assert srv.headers[-1]["authorization"] == "Bearer art-key"

        stats = trainer.step(policy, [group])
        ((groups, kwargs),) = backend.trained
        assert kwargs == {"learning_rate": 1e-5}
        assert all(isinstance(g, art.TrajectoryGroup) for g in groups)
        assert srv.refused == []
        assert [t.reward for t in groups[0]] == [0.0, 0.2, 0.4, pytest.approx(0.6)]
        assert all(
            not isinstance(x, dict) and x.logprobs
            for x in [
                c for c in groups[0].trajectories[0].messages_and_choices if not isinstance(c, dict)
            ]
        )
        assert stats == {"loss": 0.5, "groups": 1.0, "step": 1.0}

        rollout(policy, env, np.random.default_rng(1), meta(9), greedy=True)
        assert srv.chat_requests("agent")[-1]["model"] == "cd-test@1"  # the new checkpoint

        state = policy.state_dict()
        assert state["step"] == 1 and state["model"] == "cd-test"
        assert trainer.state_dict() == {"trainer": "art", "learning_rate": 1e-5, "step": 1}
        backend.step = 5  # the backend moved on (another process trained): resume from it
        policy.load_state_dict(state)
        assert policy.step == 5
        with pytest.raises(ValueError):
            policy.load_state_dict({**state, "model": "someone-else"})


def test_art_policy_start_up_errors_are_one_clear_line(store, scenario, monkeypatch):
    from codreamer.agent.policies.art_policy import ArtPolicy

    for key in ("WANDB_API_KEY", "ART_BACKEND"):
        monkeypatch.delenv(key, raising=False)
    with pytest.raises(ConfigError, match="^ART_BACKEND=serverless needs WANDB_API_KEY$"):
        ArtPolicy.from_settings(store, Settings(_env_file=None, ART_BACKEND="serverless"))
    if not has_cuda_gpu():
        with pytest.raises(ConfigError, match="needs a CUDA GPU"):
            ArtPolicy.from_settings(store, Settings(_env_file=None))


def test_the_art_trainer_refuses_another_policy(store):
    from codreamer.train.art import ArtTrainer

    with pytest.raises(TypeError, match="trains the art policy"):
        ArtTrainer().step(EmbeddedPolicy(store), [])
    with pytest.raises(ValueError, match="cannot train policy embedded"):
        RunSpec.model_validate({"trainer": "art"})


def test_serverless_backend_is_built_with_the_key_offline(art):
    from codreamer.llm.art_loader import make_backend

    backend = make_backend(
        art, Settings(_env_file=None, ART_BACKEND="serverless", WANDB_API_KEY="k" * 40)
    )
    assert isinstance(backend, art.ServerlessBackend)
