"""What most policies share (DESIGN §3): the default system prompt, no prompt to
train, and a group's rollouts one after the other. Apart from `base.py` because it
drives `rollout`, which itself speaks the interface in `base.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from codreamer.agent.rollout import SYSTEM_PROMPT, RolloutEnv, rollout
from codreamer.agent.trajectory import Trajectory, TrajectoryMeta

if TYPE_CHECKING:
    from codreamer.agent.policies.prompt import Prompt


class PolicyBase:
    """What most policies share: the default system prompt, no prompt to train, and
    a group's rollouts one after the other on the iteration's generator."""

    name = "policy"
    prompt: Prompt | None = None

    def system_prompt(self) -> str:
        if self.prompt is not None:
            return self.prompt.render()
        return SYSTEM_PROMPT

    def rollout_group(
        self,
        env: RolloutEnv,
        rng: np.random.Generator,
        metas: list[TrajectoryMeta],
        greedy: bool = False,
    ) -> list[Trajectory]:
        return [rollout(self, env, rng, m, greedy=greedy) for m in metas]  # type: ignore[arg-type]
