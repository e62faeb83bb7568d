"""Build the policy a run asked for; heavy ones are imported only when chosen.

Everything a policy needs is passed in (settings included): nothing here
reads the environment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codreamer.agent.policies.base import Policy

if TYPE_CHECKING:
    from codreamer.agent.policies.prompt import Prompt
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore

POLICIES = ("embedded", "openai", "art")


def make_policy(
    name: str,
    store: GraphStore,
    settings: Settings,
    *,
    model: str | None = None,
    prompt: Prompt | None = None,
) -> Policy:
    """`model` names the LLM (openai / art); `prompt` is an LLM policy's starting
    prompt (saved overrides applied)."""
    if name == "embedded":
        from codreamer.agent.policies.embedded import EmbeddedPolicy

        return EmbeddedPolicy(store)
    if name == "openai":
        from codreamer.agent.policies.openai_policy import OpenAIPolicy

        return OpenAIPolicy.from_settings(store, settings, model, prompt)
    if name == "art":
        from codreamer.agent.policies.art_policy import ArtPolicy

        return ArtPolicy.from_settings(store, settings, model, prompt)
    raise ValueError(f"unknown policy {name!r}: choose {', '.join(POLICIES)}")
