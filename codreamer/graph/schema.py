"""Parse and validate a JSON knowledge graph.

Two shapes exist in the wild and both are accepted: the original generator's
(`edge` / `target_id` / `relationship`) and the common one (`edges` / `target` /
`label`). Validation collects *every* problem before failing, each naming the
node or edge at fault, so a user fixes a graph in one pass.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from pydantic import BaseModel, Field

from codreamer.errors import GraphProblem, GraphTooLargeError, GraphValidationError
from codreamer.models import CUSTOMER_JOB, PRODUCT_FEATURE


class Verification(BaseModel):
    verified: bool | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    summary: str | None = None
    sources: list[str] = Field(default_factory=list)
    timestamp: str | None = None


class Edge(BaseModel):
    target: str
    relationship: str = ""
    rationale: str = ""


class Node(BaseModel):
    id: str
    content: str = ""
    edges: list[Edge] = Field(default_factory=list)
    verification: Verification | None = None

    def to_json(self) -> dict[str, Any]:
        """The canonical (`edges`/`target`/`relationship`) shape."""
        out: dict[str, Any] = {
            "id": self.id,
            "content": self.content,
            "edges": [e.model_dump() for e in self.edges],
        }
        if self.verification is not None:
            out["verification"] = self.verification.model_dump(exclude_none=True)
        return out


def is_product_feature(node_id: str) -> bool:
    return PRODUCT_FEATURE.lower() in node_id.lower()


def _type_name(v: Any) -> str:
    return type(v).__name__ if v is not None else "null"


def _parse_edge(raw: Any, where: str, problems: list[GraphProblem]) -> Edge | None:
    if not isinstance(raw, dict):
        problems.append(GraphProblem(where, f"edge must be an object, got {_type_name(raw)}"))
        return None
    target = raw.get("target_id", raw.get("target"))
    if not isinstance(target, str):
        problems.append(
            GraphProblem(
                where, f"edge needs a string `target_id` or `target`, got {_type_name(target)}"
            )
        )
        return None
    if not target.strip():
        problems.append(GraphProblem(where, "edge target is empty"))
        return None
    rel = raw.get("relationship", raw.get("label", ""))
    rationale = raw.get("rationale", "")
    ok = True
    for name, val in (("relationship", rel), ("rationale", rationale)):
        if val is not None and not isinstance(val, str):
            problems.append(
                GraphProblem(where, f"edge `{name}` must be a string, got {_type_name(val)}")
            )
            ok = False
    if not ok:
        return None
    return Edge(target=target, relationship=rel or "", rationale=rationale or "")


def _parse_verification(raw: Any, where: str, problems: list[GraphProblem]) -> Verification | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.append(
            GraphProblem(where, f"`verification` must be an object, got {_type_name(raw)}")
        )
        return None
    try:
        return Verification.model_validate(raw)
    except Exception as exc:  # pydantic's message names the sub-field
        first = str(exc).splitlines()
        problems.append(
            GraphProblem(where, f"invalid `verification`: {' '.join(first[1:3]).strip()}")
        )
        return None


def _parse_node(raw: Any, index: int, problems: list[GraphProblem]) -> Node | None:
    if not isinstance(raw, dict):
        problems.append(GraphProblem(f"node #{index}", f"must be an object, got {_type_name(raw)}"))
        return None
    node_id = raw.get("id")
    if not isinstance(node_id, str):
        problems.append(
            GraphProblem(f"node #{index}", f"`id` must be a string, got {_type_name(node_id)}")
        )
        return None
    if not node_id.strip():
        problems.append(GraphProblem(f"node #{index}", "`id` is empty"))
        return None
    where = f"node {node_id!r}"
    content = raw.get("content", "")
    if content is None:
        content = ""
    if not isinstance(content, str):
        problems.append(
            GraphProblem(where, f"`content` must be a string, got {_type_name(content)}")
        )
        content = ""
    raw_edges = raw.get("edges", raw.get("edge", []))
    if raw_edges is None:
        raw_edges = []
    edges: list[Edge] = []
    if not isinstance(raw_edges, list):
        problems.append(GraphProblem(where, f"`edges` must be a list, got {_type_name(raw_edges)}"))
    else:
        for j, raw_edge in enumerate(raw_edges):
            edge = _parse_edge(raw_edge, f"edge #{j} of node {node_id!r}", problems)
            if edge is not None:
                edges.append(edge)
    verification = _parse_verification(raw.get("verification"), where, problems)
    return Node(id=node_id, content=content, edges=edges, verification=verification)


def _has_path_to_feature(nodes: dict[str, Node]) -> bool:
    seen = {CUSTOMER_JOB}
    queue = deque([CUSTOMER_JOB])
    while queue:
        cur = queue.popleft()
        for e in nodes[cur].edges:
            if e.target in nodes and e.target not in seen:
                if is_product_feature(e.target):
                    return True
                seen.add(e.target)
                queue.append(e.target)
    return False


def parse_graph(data: Any, *, max_nodes: int | None = None) -> list[Node]:
    """Parse a graph (a list of nodes, or `{"nodes": [...]}`) and validate it.

    Raises GraphValidationError with every problem found.
    """
    if isinstance(data, dict) and "nodes" in data:
        data = data["nodes"]
    if not isinstance(data, list):
        raise GraphValidationError(
            [GraphProblem("graph", f"must be a list of nodes, got {_type_name(data)}")]
        )
    if max_nodes is not None and len(data) > max_nodes:
        raise GraphTooLargeError(
            [GraphProblem("graph", f"has {len(data)} nodes, over the cap of {max_nodes}")]
        )
    if not data:
        raise GraphValidationError([GraphProblem("graph", "has no nodes")])

    problems: list[GraphProblem] = []
    nodes: dict[str, Node] = {}
    order: list[str] = []
    for i, raw in enumerate(data):
        node = _parse_node(raw, i, problems)
        if node is None:
            continue
        if node.id in nodes:
            problems.append(GraphProblem(f"node {node.id!r}", f"duplicate id (node #{i})"))
            continue
        nodes[node.id] = node
        order.append(node.id)

    for node in nodes.values():
        for j, e in enumerate(node.edges):
            if e.target not in nodes:
                problems.append(
                    GraphProblem(
                        f"edge #{j} of node {node.id!r}",
                        f"points to unknown node {e.target!r}",
                    )
                )

    has_cj = CUSTOMER_JOB in nodes
    has_pf = any(is_product_feature(n) for n in nodes)
    if not has_cj:
        problems.append(GraphProblem("graph", f"no {CUSTOMER_JOB!r} node"))
    if not has_pf:
        problems.append(GraphProblem("graph", f"no node whose id contains {PRODUCT_FEATURE!r}"))
    if has_cj and has_pf and not _has_path_to_feature(nodes):
        problems.append(
            GraphProblem(
                f"node {CUSTOMER_JOB!r}",
                f"no directed path from {CUSTOMER_JOB!r} to a {PRODUCT_FEATURE!r} node",
            )
        )
    if problems:
        raise GraphValidationError(problems)
    return [nodes[i] for i in order]


def graph_to_json(nodes: list[Node]) -> list[dict[str, Any]]:
    return [n.to_json() for n in nodes]
