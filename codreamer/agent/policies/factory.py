"""Build the policy a run asked for; heavy ones are imported only when chosen.

Everything a policy needs is passed in (settings included): nothing here
reads the environment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codreamer.agent.policies.base import Policy
from codreamer.registry import POLICIES, resolve

if TYPE_CHECKING:
    from codreamer.agent.policies.prompt import Prompt
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore


def make_policy(
    name: str,
    store: GraphStore,
    settings: Settings,
    *,
    model: str | None = None,
    prompt: Prompt | None = None,
) -> Policy:
    """`model` names the LLM (openai / art); `prompt` is an LLM policy's starting
    prompt (saved overrides applied). Names and factories: codreamer.registry."""
    factory = resolve(POLICIES.get(name).factory)
    return factory(store, settings, model, prompt)  # type: ignore[no-any-return]
