"""The `art` trainer: ART's `backend.train` on the judged groups (DESIGN §3).

It trains the `art` policy's model on that policy's backend, then points the
policy at the new checkpoint, so the next rollouts use it. The weights live
with the backend; this trainer's own state is its learning rate and the step
it last reached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codreamer.agent.policies.art_policy import ArtPolicy
from codreamer.errors import LLMError, PolicyError
from codreamer.llm.aio import run_sync
from codreamer.tracing import op
from codreamer.train.art_adapter import to_art_groups

if TYPE_CHECKING:
    from codreamer.agent.trajectory import Trajectory


class ArtTrainer:
    name = "art"

    def __init__(self, learning_rate: float = 5e-6) -> None:
        self.learning_rate = learning_rate
        self.last_step: int | None = None

    @op("codreamer.art.train_step")
    def step(self, policy: Any, judged_groups: list[list[Trajectory]]) -> dict[str, float]:
        if not isinstance(policy, ArtPolicy):
            raise TypeError(f"the art trainer trains the art policy, not {policy.name!r}")
        art_groups = to_art_groups([g for g in judged_groups if g])
        if not art_groups:
            return {"groups": 0.0, "step": float(policy.step)}
        try:
            result = run_sync(
                policy.backend.train(policy.art_model, art_groups, learning_rate=self.learning_rate)
            )
        except (LLMError, ConnectionError, TimeoutError) as exc:
            raise PolicyError(f"art training failed: {exc}") from exc
        policy.step = int(getattr(result, "step", None) or run_sync(policy.art_model.get_step()))
        self.last_step = policy.step
        stats = {
            k: float(v)
            for k, v in (getattr(result, "metrics", None) or {}).items()
            if isinstance(v, (int, float))
        }
        return {**stats, "groups": float(len(art_groups)), "step": float(policy.step)}

    def state_dict(self) -> dict[str, Any]:
        return {"trainer": self.name, "learning_rate": self.learning_rate, "step": self.last_step}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.last_step = state.get("step")
