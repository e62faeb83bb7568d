"""Build the policy a run asked for; heavy ones are imported only when chosen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codreamer.agent.policies.base import Policy

if TYPE_CHECKING:
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore
    from codreamer.loop.config import LoopConfig


def make_policy(config: LoopConfig, store: GraphStore, settings: Settings | None = None) -> Policy:
    if config.policy == "embedded":
        from codreamer.agent.policies.embedded import EmbeddedPolicy

        return EmbeddedPolicy(store)
    if config.policy == "openai":
        from codreamer.agent.policies.openai_policy import OpenAIPolicy

        return OpenAIPolicy.from_settings(store, config, settings)
    if config.policy == "art":
        from codreamer.train.art_adapter import ArtPolicy

        return ArtPolicy.from_settings(store, config, settings)
    raise ValueError(f"unknown policy {config.policy!r}: choose embedded, openai or art")
