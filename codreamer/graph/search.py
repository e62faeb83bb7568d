"""Searches over a graph that callers other than the agent's walk need."""

from __future__ import annotations

from codreamer.graph.store import GraphStore
from codreamer.models import CUSTOMER_JOB


def shortest_path(store: GraphStore, source: str | None = None) -> list[str]:
    """A shortest path from `source` (default Customer Job) to a Product Feature node,
    taking the first edge in graph order at each tie; `[source]` when none is reachable."""
    node = source or CUSTOMER_JOB
    path = [node]
    hops = store.hops_to_feature(node)
    while hops:  # None (unreachable) or 0 (arrived) stop
        node = next(
            nb.id for nb in store.out_neighbours(node) if store.hops_to_feature(nb.id) == hops - 1
        )
        path.append(node)
        hops -= 1
    return path
