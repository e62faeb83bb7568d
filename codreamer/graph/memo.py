"""Values worked out once per graph: `per_graph` memoises a function of a GraphStore.

Keyed by the store's identity (a GraphStore is not hashable by value, and two loads
of one file are two graphs to memoise alike), holding the store itself so that an id
reused by a later object is never mistaken for it; bounded, cleared when full.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from codreamer.graph.store import GraphStore

T = TypeVar("T")
MAX_GRAPHS = 64  # graphs remembered per function before its memo is cleared


def per_graph(fn: Callable[[GraphStore], T]) -> Callable[[GraphStore], T]:
    memo: dict[int, tuple[GraphStore, T]] = {}

    @wraps(fn)
    def once(store: GraphStore) -> T:
        hit = memo.get(id(store))
        if hit is not None and hit[0] is store:
            return hit[1]
        value = fn(store)
        if len(memo) > MAX_GRAPHS:
            memo.clear()
        memo[id(store)] = (store, value)
        return value

    return once
