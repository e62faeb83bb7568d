"""ART (OpenPipe's Agent Reinforcement Trainer): trajectory conversion and the `art` policy.

Conversion is lossless both ways (`from_art_trajectory(to_art_trajectory(t))`
equals `t`, field for field):

  * assistant turns become `Choice` objects, the part ART trains on; when the
    rollout kept the model's raw choice (LLMDecision), that choice is used, so
    ART gets the real token log-probs; a turn composed by us (force_finalize)
    stays a plain message, which ART does not train on;
  * other messages pass through as dicts;
  * the reward goes to `reward` (None as 0.0), per-criterion scores and reward
    components to `metrics` (for ART's logs);
  * TrajectoryMeta's scalar fields go to `metadata` as they are, other fields
    and what ART has no slot for (final email, per-turn log-probs, judgement,
    the exact reward, any message ART's types would normalise) as JSON text
    under `cd_*` keys.

Nothing here imports `art` at module import: `codreamer --help` and the
embedded loop never pay for it.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import TYPE_CHECKING, Any

from codreamer.agent.policies.openai_policy import LLMDecision, OpenAIPolicy
from codreamer.agent.trajectory import Trajectory, TrajectoryMeta
from codreamer.errors import ConfigError, LLMError, PolicyError
from codreamer.llm.aio import run_sync
from codreamer.llm.client import ChatClient
from codreamer.models import FinalEmail, Judgement
from codreamer.tracing import op

if TYPE_CHECKING:
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore
    from codreamer.loop.config import LoopConfig

_SCALARS = (str, int, float, bool, type(None))
_FINISH = {"stop", "length", "tool_calls", "content_filter", "function_call"}


def load_art() -> Any:
    """Import `art`, or say what to install. LiteLLM (imported by ART) would fetch its
    model-price map from GitHub at import; the bundled copy keeps it offline."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # LiteLLM's response objects trip pydantic's serializer checks on every judge
    # call; the warnings say nothing actionable to a CoDreamer user.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    try:
        import art
        import art.rewards  # noqa: F401 - RULER lives here
    except ImportError:
        raise ConfigError("the art extra is not installed: uv sync --extra art") from None
    return art


# --- trajectories --------------------------------------------------------------


def _choice_message(choice: Any) -> dict[str, Any]:
    """Our message dict for an ART Choice (the shape the rollout driver writes)."""
    msg = choice.message
    out: dict[str, Any] = {"role": "assistant", "content": msg.content}
    if msg.tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in msg.tool_calls
        ]
    return out


def _make_choice(choice_cls: Any, message: dict[str, Any], raw: dict[str, Any] | None) -> Any:
    if raw is not None:
        data = dict(raw)
        data.setdefault("index", 0)
        if data.get("finish_reason") not in _FINISH:
            data["finish_reason"] = "tool_calls" if message.get("tool_calls") else "stop"
        return choice_cls.model_validate(data)
    return choice_cls.model_validate(
        {
            "index": 0,
            "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            "message": message,
            "logprobs": None,
        }
    )


def _aligned_decisions(traj: Trajectory) -> list[LLMDecision] | None:
    """The LLM decisions one-to-one with assistant messages, when the rollout kept them."""
    decisions = [d for d in traj.decisions if isinstance(d, LLMDecision)]
    n_assistant = sum(1 for m in traj.messages if m.get("role") == "assistant")
    return decisions if decisions and len(decisions) == n_assistant else None


def to_art_trajectory(traj: Trajectory) -> Any:
    art = load_art()
    from openai.types.chat.chat_completion import Choice

    decisions = _aligned_decisions(traj)
    items: list[Any] = []
    k = 0
    for m in traj.messages:
        if m.get("role") != "assistant":
            items.append(dict(m))
            continue
        d = decisions[k] if decisions else None
        k += 1
        if d is not None and d.choice is None:
            items.append(dict(m))  # composed by us, not by the model: not trainable
        else:
            items.append(_make_choice(Choice, m, d.choice if d else None))

    meta = traj.metadata.model_dump(mode="json")
    metadata: dict[str, Any] = {}
    json_keys = []
    for key, value in meta.items():
        if isinstance(value, _SCALARS):
            metadata[key] = value
        else:
            metadata[key] = json.dumps(value, ensure_ascii=False)
            json_keys.append(key)
    metadata["cd_json"] = json.dumps(json_keys)
    metadata["cd_final_email"] = traj.final_email.model_dump_json()
    metadata["cd_logprobs"] = json.dumps(traj.logprobs)
    metadata["cd_reward"] = json.dumps(traj.reward)
    metadata["cd_reward_components"] = json.dumps(traj.reward_components)
    metadata["cd_judgement"] = traj.judgement.model_dump_json() if traj.judgement else None

    metrics: dict[str, float | int | bool] = {"logprob": traj.logprob}
    metrics.update({f"reward/{k}": float(v) for k, v in traj.reward_components.items()})
    if traj.judgement is not None:
        metrics.update({f"judge/{k}": c.score for k, c in traj.judgement.criteria.items()})

    out = art.Trajectory(
        messages_and_choices=items,
        tools=_tools(),
        reward=float(traj.reward) if traj.reward is not None else 0.0,
        metrics=metrics,
        metadata=metadata,
    )
    # ART's types may normalise a message (a TypedDict drops unknown keys, a
    # model fills defaults): keep the original of any that would not come back.
    back = [_our_message(x) for x in out.messages_and_choices]
    fixes = {str(i): m for i, (m, b) in enumerate(zip(traj.messages, back, strict=True)) if m != b}
    if fixes:
        out.metadata["cd_messages"] = json.dumps(fixes, ensure_ascii=False)
    return out


def _tools() -> list[dict[str, Any]]:
    from codreamer.agent.tools import TOOL_SCHEMAS

    return json.loads(json.dumps(TOOL_SCHEMAS))  # a copy ART may keep


def _our_message(item: Any) -> dict[str, Any]:
    return dict(item) if isinstance(item, dict) else _choice_message(item)


def from_art_trajectory(at: Any) -> Trajectory:
    md = dict(at.metadata)
    json_keys = set(json.loads(md.get("cd_json") or "[]"))
    meta = {
        k: json.loads(v) if k in json_keys and isinstance(v, str) else v
        for k, v in md.items()
        if not k.startswith("cd_")
    }
    messages = [_our_message(x) for x in at.messages_and_choices]
    for i, m in json.loads(md.get("cd_messages") or "{}").items():
        messages[int(i)] = m
    decisions = []  # one per assistant turn, so the result can be trained on again
    for x in at.messages_and_choices:
        if not isinstance(x, dict):
            decisions.append(LLMDecision(x.model_dump(mode="json")))
        elif x.get("role") == "assistant":
            decisions.append(LLMDecision(None))
    stored = json.loads(md["cd_reward"]) if "cd_reward" in md else None
    # ART's reward wins when something (RULER, a person) changed it on the ART side.
    reward = stored if float(stored or 0.0) == float(at.reward) else float(at.reward)
    judgement = md.get("cd_judgement")
    final = md.get("cd_final_email")
    meta.setdefault("trajectory_id", "art")
    meta.setdefault("scenario_id", "unknown")
    meta.setdefault("iteration", 0)
    return Trajectory.model_construct(
        messages=messages,
        final_email=FinalEmail.model_validate_json(final) if final else _email_from(messages),
        logprobs=json.loads(md.get("cd_logprobs") or "[]"),
        reward=reward,
        judgement=Judgement.model_validate_json(judgement) if judgement else None,
        reward_components=json.loads(md.get("cd_reward_components") or "{}"),
        metadata=TrajectoryMeta.model_validate(meta),
        decisions=decisions,
    )


def _email_from(messages: list[dict[str, Any]]) -> FinalEmail:
    """A foreign ART trajectory: the last finalize_email call's arguments, if any."""
    for m in reversed(messages):
        for c in reversed(m.get("tool_calls") or []):
            if c.get("function", {}).get("name") == "finalize_email":
                try:
                    args = json.loads(c["function"]["arguments"])
                    return FinalEmail.model_validate(args)
                except (ValueError, TypeError):
                    continue
    return FinalEmail(subject="", body="", citations=[])


def to_art_groups(groups: list[list[Trajectory]]) -> list[Any]:
    art = load_art()
    return [
        art.TrajectoryGroup(
            [to_art_trajectory(t) for t in group],
            metadata={
                "group": group[0].metadata.group if group else g,
                "scenario_id": group[0].metadata.scenario_id if group else None,
            },
        )
        for g, group in enumerate(groups)
    ]


def from_art_groups(groups: list[Any]) -> list[list[Trajectory]]:
    return [[from_art_trajectory(t) for t in g.trajectories] for g in groups]


# --- the policy ----------------------------------------------------------------


def make_backend(art: Any, settings: Settings) -> Any:
    if settings.art_backend == "serverless":
        return art.ServerlessBackend(api_key=settings.wandb_api_key)
    from art.local import LocalBackend

    return LocalBackend()


class ArtPolicy(OpenAIPolicy):
    """An `art.TrainableModel` on an ART backend. Rollouts go through the model's
    OpenAI-compatible inference endpoint (the same sessions as the `openai` policy,
    with token log-probs on); training is ART's `backend.train` on the judged
    groups; the checkpoint step is ART's (`model.get_step()`), so a resumed run
    continues from the backend's latest checkpoint."""

    name = "art"
    trainable = True

    def __init__(
        self,
        store: GraphStore,
        model: Any,
        backend: Any,
        *,
        learning_rate: float = 5e-6,
        temperature: float = 1.0,
        concurrency: int = 4,
        timeout_s: float = 600.0,
        max_retries: int = 3,
    ) -> None:
        """`model` must be registered with `backend` already (see `create`)."""
        self.art_model = model
        self.backend = backend
        self.learning_rate = learning_rate
        self.step = int(run_sync(model.get_step()))
        client = ChatClient(
            model.inference_base_url,
            model.inference_api_key,
            timeout_s=timeout_s,
            max_retries=max_retries,
        )
        super().__init__(
            store,
            client,
            model.name,
            temperature=temperature,
            logprobs=True,
            concurrency=concurrency,
        )

    @classmethod
    def create(cls, store: GraphStore, model: Any, backend: Any, **kw: Any) -> ArtPolicy:
        run_sync(model.register(backend))
        return cls(store, model, backend, **kw)

    @classmethod
    def from_settings(
        cls, store: GraphStore, config: LoopConfig, settings: Settings | None = None
    ) -> ArtPolicy:
        from codreamer.config import get_settings
        from codreamer.preflight import check_policy
        from codreamer.tracing import init_tracing

        settings = settings or get_settings()
        check_policy("art", settings)
        art = load_art()
        init_tracing(settings)
        model = art.TrainableModel(
            name=config.model or settings.art_model_name,
            project=settings.art_project,
            base_model=settings.art_base_model,
        )
        return cls.create(
            store,
            model,
            make_backend(art, settings),
            learning_rate=settings.art_learning_rate,
            temperature=settings.llm_temperature,
            concurrency=settings.llm_concurrency,
            max_retries=settings.llm_max_retries,
        )

    def model_name(self) -> str:
        # The checkpoint being trained; ART's LocalBackend serves it as name@step.
        return str(self.art_model.get_inference_name(self.step))

    @op("codreamer.art.train_step")
    def train_step(self, groups: list[list[Trajectory]]) -> dict[str, float]:
        art_groups = to_art_groups([g for g in groups if g])
        if not art_groups:
            return {"groups": 0.0, "step": float(self.step)}
        try:
            result = run_sync(
                self.backend.train(self.art_model, art_groups, learning_rate=self.learning_rate)
            )
        except (LLMError, ConnectionError, TimeoutError) as exc:
            raise PolicyError(f"art training failed: {exc}") from exc
        self.step = int(getattr(result, "step", None) or run_sync(self.art_model.get_step()))
        stats = {
            k: float(v)
            for k, v in (getattr(result, "metrics", None) or {}).items()
            if isinstance(v, (int, float))
        }
        return {**stats, "groups": float(len(art_groups)), "step": float(self.step)}

    def state_dict(self) -> dict[str, Any]:
        m = self.art_model
        return {
            "policy": self.name,
            "model": m.name,
            "project": m.project,
            "base_model": m.base_model,
            "backend": type(self.backend).__name__,
            "step": self.step,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        # The weights live with the backend; its latest checkpoint is the state.
        if state.get("model") not in (None, self.art_model.name):
            raise ValueError(f"policy state belongs to ART model {state.get('model')!r}")
        self.step = int(run_sync(self.art_model.get_step()))
