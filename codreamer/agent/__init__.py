"""The agent: tools over a graph, the email composer, rollouts and policies."""
