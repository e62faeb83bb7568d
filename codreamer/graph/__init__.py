"""The knowledge graph: parsing and validation, a networkx store, per-run node scores."""

from codreamer.graph.schema import Edge, Node, Verification, parse_graph
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore

__all__ = ["Edge", "GraphStore", "Node", "NodeScores", "Verification", "parse_graph"]
