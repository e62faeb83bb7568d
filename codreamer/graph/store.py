"""A read-only graph store on networkx, with the lookups the agent needs precomputed.

The agent's hot path (thousands of rollouts a second) reads plain dicts built
once here. The networkx DiGraph behind the graph algorithms (k-hop subgraphs,
and whatever else a caller needs from networkx) is built on first use:
importing networkx alone costs more than a whole learn-loop on a small graph.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from codreamer.errors import UnknownNodeError
from codreamer.graph.schema import (
    Node,
    Verification,
    graph_to_json,
    is_product_feature,
    parse_graph,
)
from codreamer.models import CUSTOMER_JOB

if TYPE_CHECKING:
    import networkx as nx


@dataclass(frozen=True, slots=True)
class Neighbour:
    id: str
    relationship: str
    rationale: str


class GraphStore:
    """An immutable view of one graph. Build it from validated nodes (`parse_graph`)."""

    def __init__(self, nodes: Iterable[Node]) -> None:
        self.nodes: dict[str, Node] = {n.id: n for n in nodes}
        self._out: dict[str, list[Neighbour]] = {}
        self._pred: dict[str, list[str]] = {nid: [] for nid in self.nodes}
        for n in self.nodes.values():
            seen: set[str] = set()
            out: list[Neighbour] = []
            for e in n.edges:
                # Parallel edges collapse to the first: the agent moves between nodes.
                if e.target in seen or e.target not in self.nodes:
                    continue
                seen.add(e.target)
                out.append(Neighbour(e.target, e.relationship, e.rationale))
                self._pred[e.target].append(n.id)
            self._out[n.id] = out
        self._edges = {(src, nb.id) for src, nbs in self._out.items() for nb in nbs}
        self._edge_count = len(self._edges)
        self.product_features: list[str] = [i for i in self.nodes if is_product_feature(i)]
        self._hops = self._compute_hops()

    @classmethod
    def from_json(cls, data: Any, *, max_nodes: int | None = None) -> GraphStore:
        return cls(parse_graph(data, max_nodes=max_nodes))

    # -- lookups -----------------------------------------------------------
    def __contains__(self, node_id: object) -> bool:
        return node_id in self.nodes

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def edge_count(self) -> int:
        return self._edge_count

    @cached_property
    def graph(self) -> nx.DiGraph:
        """The graph as a networkx DiGraph (edges carry relationship and rationale)."""
        # Deferred: networkx is slow to import and only graph analyses need it.
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(self.nodes)
        for source, nbs in self._out.items():
            for nb in nbs:
                g.add_edge(source, nb.id, relationship=nb.relationship, rationale=nb.rationale)
        return g

    def node(self, node_id: str) -> Node:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise UnknownNodeError(node_id) from None

    def content(self, node_id: str) -> str:
        return self.node(node_id).content

    def verification(self, node_id: str) -> Verification | None:
        return self.node(node_id).verification

    def out_neighbours(self, node_id: str) -> list[Neighbour]:
        """Out-neighbours in the graph's own edge order, with relationship and rationale."""
        if node_id not in self._out:
            raise UnknownNodeError(node_id)
        return self._out[node_id]

    def predecessors(self, node_id: str) -> list[str]:
        """Nodes with an edge into `node_id`, without building the networkx graph."""
        if node_id not in self._pred:
            raise UnknownNodeError(node_id)
        return self._pred[node_id]

    def has_edge(self, source: str, target: str) -> bool:
        return (source, target) in self._edges

    def edge(self, source: str, target: str) -> Neighbour | None:
        for nb in self._out.get(source, ()):
            if nb.id == target:
                return nb
        return None

    def hops_to_feature(self, node_id: str) -> int | None:
        """Fewest hops from `node_id` to any Product Feature node (0 for one); None: unreachable."""
        if node_id not in self.nodes:
            raise UnknownNodeError(node_id)
        return self._hops.get(node_id)

    @property
    def all_hops_to_feature(self) -> dict[str, int]:
        return dict(self._hops)

    def _compute_hops(self) -> dict[str, int]:
        # One reverse BFS from every Product Feature at once: O(V + E).
        hops: dict[str, int] = {pf: 0 for pf in self.product_features}
        queue = deque(self.product_features)
        pred = self._pred
        while queue:
            cur = queue.popleft()
            for p in pred[cur]:
                if p not in hops:
                    hops[p] = hops[cur] + 1
                    queue.append(p)
        return hops

    def k_hop_subgraph(self, node_id: str, k: int) -> nx.DiGraph:
        """Nodes reachable in at most k out-hops from `node_id`, with the edges among them."""
        import networkx as nx  # deferred: see `graph` above

        self.node(node_id)
        return nx.ego_graph(self.graph, node_id, radius=k)

    def paths_to_features(self, source: str = CUSTOMER_JOB, max_hops: int = 6) -> list[list[str]]:
        """Simple paths from `source` to a Product Feature node, at most `max_hops` edges.

        A path stops at the first Product Feature it reaches.
        """
        self.node(source)
        paths: list[list[str]] = []
        if is_product_feature(source):
            return [[source]]
        stack: list[tuple[str, list[str]]] = [(source, [source])]
        while stack:
            cur, path = stack.pop()
            if len(path) - 1 >= max_hops:
                continue
            for nb in self._out[cur]:
                if nb.id in path:
                    continue
                new = path + [nb.id]
                if is_product_feature(nb.id):
                    paths.append(new)
                else:
                    stack.append((nb.id, new))
        paths.sort(key=lambda p: (len(p), p))
        return paths

    def to_json(self) -> list[dict[str, Any]]:
        return graph_to_json(list(self.nodes.values()))

    def digest(self) -> str:
        """A stable hash of the graph's content, recorded in run metadata."""
        blob = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":")).encode()
        return "sha256:" + hashlib.sha256(blob).hexdigest()
