"""Parse and validate a JSON knowledge graph.

Two shapes exist in the wild and both are accepted: the original generator's
(`edge` / `target_id` / `relationship`) and the common one (`edges` / `target` /
`label`). Keys outside the schema are refused, naming the key and the close one.
Validation collects every problem before failing (the first ones kept, all
counted), each naming the node or edge at fault, so a user fixes a graph in one
pass and an error never grows with a hostile graph.
"""

from __future__ import annotations

import difflib
from collections import deque
from collections.abc import Collection
from typing import Any, NamedTuple

from pydantic import BaseModel, Field, ValidationError

from codreamer.errors import (
    GraphProblem,
    GraphTooLargeError,
    GraphValidationError,
    Problems,
    ScenarioError,
    quote,
)
from codreamer.models import CUSTOMER_JOB, PRODUCT_FEATURE, Scenario


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


# Every key a graph may use. Anything else is refused naming the key: a typo such as
# `contnet` would otherwise drop the node's text and the email would get filler.
NODE_KEYS = ("id", "content", "edge", "edges", "verification")
EDGE_KEYS = ("target_id", "target", "relationship", "label", "rationale")
_EDGE_KEY_SET = frozenset(EDGE_KEYS)
VERIFICATION_KEYS = tuple(Verification.model_fields)


def _type_name(v: Any) -> str:
    return type(v).__name__ if v is not None else "null"


def _unknown_keys(
    raw: dict[str, Any], known: tuple[str, ...], what: str, problems: Problems
) -> list[str]:
    """One message per key that is not part of the schema, with the close one if any.
    Once no more problems are kept, the keys are only counted (no difflib per key)."""
    if problems.full:
        problems.count(sum(1 for key in raw if key not in known))
        return []
    out = []
    for key in raw:
        if key in known:
            continue
        close = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.6)
        hint = f"; did you mean `{close[0]}`?" if close else f"; known keys: {', '.join(known)}"
        out.append(f"unknown {what} key {quote(key)}{hint}")
    return out


# Above this many nodes a name with no case-insensitive match gets no fuzzy guess:
# difflib over a hostile graph's every edge would cost more than the check itself.
FUZZY_NODE_LIMIT = 500


def node_index(ids: Collection[str]) -> dict[str, str]:
    """Case- and space-folded name -> id, so "Customer job" finds "Customer Job"."""
    return {" ".join(i.split()).casefold(): i for i in ids}


def near_node(name: str, index: dict[str, str]) -> str:
    """ "; did you mean `X`?" for a node name that nearly matches one in the graph."""
    hit = index.get(" ".join(name.split()).casefold())
    if hit is None and len(index) <= FUZZY_NODE_LIMIT:
        close = difflib.get_close_matches(name.casefold(), list(index), n=1, cutoff=0.75)
        hit = index[close[0]] if close else None
    return f"; did you mean {quote(hit)}?" if hit is not None and hit != name else ""


# An edge as checked, before any model is built: (target, relationship, rationale).
# Models are built only for a graph without problems, so a hostile graph of 100,000
# bad edges costs tuples, not 100,000 pydantic objects.
EdgeDraft = tuple[str, str, str]


class NodeDraft(NamedTuple):
    id: str
    content: str
    edges: list[EdgeDraft]
    verification: Verification | None


def _parse_edge(raw: Any, node_id: str, j: int, problems: Problems) -> EdgeDraft | None:
    def where() -> str:
        return f"edge #{j} of node {quote(node_id)}"

    if not isinstance(raw, dict):
        problems.add(where(), f"edge must be an object, got {_type_name(raw)}")
        return None
    if not raw.keys() <= _EDGE_KEY_SET:
        for message in _unknown_keys(raw, EDGE_KEYS, "edge", problems):
            problems.add(where(), message)
    if "target_id" in raw and "target" in raw and raw["target_id"] != raw["target"]:
        problems.add(where(), "edge has both `target_id` and `target`, and they differ")
    target = raw.get("target_id", raw.get("target"))
    if not isinstance(target, str):
        got = _type_name(target)
        problems.add(where(), f"edge needs a string `target_id` or `target`, got {got}")
        return None
    if not target.strip():
        problems.add(where(), "edge target is empty")
        return None
    rel = raw.get("relationship", raw.get("label", ""))
    rationale = raw.get("rationale", "")
    ok = True
    for name, val in (("relationship", rel), ("rationale", rationale)):
        if val is not None and not isinstance(val, str):
            problems.add(where(), f"edge `{name}` must be a string, got {_type_name(val)}")
            ok = False
    if not ok:
        return None
    return (target, rel or "", rationale or "")


def _parse_verification(raw: Any, where: str, problems: Problems) -> Verification | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.add(where, f"`verification` must be an object, got {_type_name(raw)}")
        return None
    unknown = _unknown_keys(raw, VERIFICATION_KEYS, "verification", problems)
    for message in unknown:
        problems.add(where, message)
    try:
        verification = Verification.model_validate(raw)
    except ValidationError as exc:
        for err in exc.errors(include_url=False, include_input=False)[:5]:
            field = ".".join(str(x) for x in err["loc"]) or "verification"
            problems.add(where, f"invalid `verification.{field}`: {err['msg']}")
        return None
    return None if unknown else verification


def _parse_node(raw: Any, index: int, problems: Problems) -> NodeDraft | None:
    if not isinstance(raw, dict):
        problems.add(f"node #{index}", f"must be an object, got {_type_name(raw)}")
        return None
    node_id = raw.get("id")
    if not isinstance(node_id, str):
        problems.add(f"node #{index}", f"`id` must be a string, got {_type_name(node_id)}")
        return None
    if not node_id.strip():
        problems.add(f"node #{index}", "`id` is empty")
        return None
    where = f"node {quote(node_id)}"
    for message in _unknown_keys(raw, NODE_KEYS, "node", problems):
        problems.add(where, message)
    content = raw.get("content", "")
    if content is None:
        content = ""
    if not isinstance(content, str):
        problems.add(where, f"`content` must be a string, got {_type_name(content)}")
        content = ""
    if "edge" in raw and "edges" in raw:
        problems.add(where, "has both `edge` and `edges`; use one")
    raw_edges = raw.get("edges", raw.get("edge", []))
    if raw_edges is None:
        raw_edges = []
    edges: list[EdgeDraft] = []
    if not isinstance(raw_edges, list):
        problems.add(where, f"`edges` must be a list, got {_type_name(raw_edges)}")
    else:
        for j, raw_edge in enumerate(raw_edges):
            edge = _parse_edge(raw_edge, node_id, j, problems)
            if edge is not None:
                edges.append(edge)
    verification = _parse_verification(raw.get("verification"), where, problems)
    return NodeDraft(node_id, content, edges, verification)


def _has_path_to_feature(nodes: dict[str, NodeDraft]) -> bool:
    seen = {CUSTOMER_JOB}
    queue = deque([CUSTOMER_JOB])
    while queue:
        cur = queue.popleft()
        for target, _, _ in nodes[cur].edges:
            if target in nodes and target not in seen:
                if is_product_feature(target):
                    return True
                seen.add(target)
                queue.append(target)
    return False


def _node_list(data: Any) -> Any:
    """The node list inside what a user may hand over: the list itself, `{"nodes": [...]}`,
    or a whole POST /learn-loop body `{"graph": [...], ...}` (one loader everywhere)."""
    if isinstance(data, dict):
        if "graph" in data:
            return data["graph"]
        if "nodes" in data:
            return data["nodes"]
        raise GraphValidationError(
            [
                GraphProblem(
                    "graph",
                    "an object must hold the node list as `graph` (a POST /learn-loop body) "
                    "or `nodes`; or give the list itself",
                )
            ]
        )
    return data


def parse_graph(data: Any, *, max_nodes: int | None = None) -> list[Node]:
    """Parse a graph (a list of nodes, `{"nodes": [...]}` or `{"graph": [...]}`) and
    validate it.

    Raises GraphValidationError with the first problems found and their total count.
    """
    data = _node_list(data)
    if not isinstance(data, list):
        raise GraphValidationError(
            [GraphProblem("graph", f"must be a list of nodes, got {_type_name(data)}")]
        )
    if max_nodes is not None and len(data) > max_nodes:
        raise GraphTooLargeError(
            [GraphProblem("graph", f"has {len(data):,} nodes, over the cap of {max_nodes:,}")]
        )
    if not data:
        raise GraphValidationError([GraphProblem("graph", "has no nodes")])

    problems = Problems()
    nodes: dict[str, NodeDraft] = {}
    order: list[str] = []
    for i, raw in enumerate(data):
        node = _parse_node(raw, i, problems)
        if node is None:
            continue
        if node.id in nodes:
            problems.add(f"node {quote(node.id)}", f"duplicate id (node #{i})")
            continue
        nodes[node.id] = node
        order.append(node.id)

    index = node_index(nodes)
    for node in nodes.values():
        for j, (target, _, _) in enumerate(node.edges):
            if target not in nodes and problems.full:
                problems.count()
            elif target not in nodes:
                problems.add(
                    f"edge #{j} of node {quote(node.id)}",
                    f"points to unknown node {quote(target)}{near_node(target, index)}",
                )

    has_cj = CUSTOMER_JOB in nodes
    has_pf = any(is_product_feature(n) for n in nodes)
    if not has_cj:
        problems.add("graph", f"no {CUSTOMER_JOB!r} node{near_node(CUSTOMER_JOB, index)}")
    if not has_pf:
        problems.add("graph", f"no node whose id contains {PRODUCT_FEATURE!r}")
    if has_cj and has_pf and not _has_path_to_feature(nodes):
        problems.add(
            f"node {CUSTOMER_JOB!r}",
            f"no directed path from {CUSTOMER_JOB!r} to a {PRODUCT_FEATURE!r} node",
        )
    if problems:
        raise GraphValidationError(problems)
    # Every value was checked above: build the models without validating them again.
    return [
        Node.model_construct(
            id=d.id,
            content=d.content,
            edges=[
                Edge.model_construct(target=t, relationship=r, rationale=x) for t, r, x in d.edges
            ],
            verification=d.verification,
        )
        for d in (nodes[i] for i in order)
    ]


def check_seed_nodes(node_ids: Collection[str], scenario: Scenario) -> None:
    """DESIGN §2: a scenario's seed node that is not in the graph is an error naming it
    (a rollout would otherwise start from `Customer Job` without a word)."""
    missing = [s for s in scenario.seed_nodes if s not in node_ids]
    if missing:
        index = node_index(node_ids)
        names = ", ".join(f"{quote(m)}{near_node(m, index)}" for m in missing[:5])
        more = f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""
        raise ScenarioError(
            f"seed node {names}{more} of scenario {quote(scenario.id)} is not in the graph"
        )


def graph_to_json(nodes: list[Node]) -> list[dict[str, Any]]:
    return [n.to_json() for n in nodes]
