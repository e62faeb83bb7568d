"""ART (OpenPipe's Agent Reinforcement Trainer): lossless trajectory conversion.

The `art` policy acts (codreamer/agent/policies/art_policy.py); the `art`
trainer (codreamer/train/art.py) trains on groups converted here.

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
from typing import Any

from codreamer.agent.policies.openai_policy import LLMDecision
from codreamer.agent.tools import TOOL_SCHEMAS
from codreamer.agent.trajectory import Trajectory, TrajectoryMeta
from codreamer.llm.art_loader import load_art
from codreamer.models import FinalEmail, Judgement

__all__ = [
    "from_art_groups",
    "from_art_trajectory",
    "load_art",
    "to_art_groups",
    "to_art_trajectory",
]

_SCALARS = (str, int, float, bool, type(None))
_FINISH = {"stop", "length", "tool_calls", "content_filter", "function_call"}


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
    # Deferred: openai comes with the optional `art` extra.
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
