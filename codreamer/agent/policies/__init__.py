"""Policies behind one interface: `embedded` (NumPy, default), `openai`, `art`."""

from codreamer.agent.policies.base import Policy, PolicySession, ToolCall, Turn

__all__ = ["Policy", "PolicySession", "ToolCall", "Turn"]
