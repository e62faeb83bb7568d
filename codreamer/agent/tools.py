"""The agent's three tools, over one run's graph and node scores.

Names, arguments and meanings are fixed by DESIGN §3; the same functions back
the embedded policy and the OpenAI tool schemas an LLM policy sees. Nothing
here reads files: a run hands in its own store and scores.
"""

from __future__ import annotations

import json
from typing import Any

from codreamer.errors import UnknownNodeError, UnknownToolError
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.models import FinalEmail

GET_CONNECTED_NODES = "get_connected_nodes"
GET_RELEVANT_CONTEXT = "get_relevant_context"
FINALIZE_EMAIL = "finalize_email"
TOOL_NAMES = (GET_CONNECTED_NODES, GET_RELEVANT_CONTEXT, FINALIZE_EMAIL)


def _tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    """One OpenAI function-tool schema; every argument is required, no others allowed."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }


_NODE_ID = {"node_id": {"type": "string", "description": "A node id."}}

TOOL_SCHEMAS: list[dict[str, Any]] = [
    _tool(
        GET_CONNECTED_NODES,
        "List the ids of the nodes this node points to in the knowledge graph, "
        "most promising first.",
        _NODE_ID,
    ),
    _tool(
        GET_RELEVANT_CONTEXT,
        "Get a short evidence block for a node: its content, how it was reached "
        "(relationship and rationale) and the citation id to use for it.",
        _NODE_ID,
    ),
    _tool(
        FINALIZE_EMAIL,
        "Send the finished email. Cite the ids of the nodes whose facts the email "
        "uses, in the order of the argument, from 'Customer Job' to a 'Product "
        "Feature' node. Ends the conversation.",
        {
            "subject": {"type": "string"},
            "body": {"type": "string"},
            "citations": {"type": "array", "items": {"type": "string"}},
        },
    ),
]


class AgentTools:
    """The tools bound to one graph and one set of node scores."""

    def __init__(self, store: GraphStore, scores: NodeScores) -> None:
        self.store = store
        self.scores = scores
        # Scores only move between generation steps; the ranking is cached per
        # node and dropped by `invalidate()` when they do.
        self._ranked: dict[str, list[str]] = {}
        # Results and their JSON for the rollout's messages, memoised: evidence
        # never changes within a run, rankings only when the scores do. Callers
        # must treat returned results as read-only.
        self._json: dict[tuple[str, str, str | None], tuple[Any, str]] = {}

    def invalidate(self) -> None:
        self._ranked.clear()
        self._json = {k: v for k, v in self._json.items() if k[0] != GET_CONNECTED_NODES}

    def call_json(self, name: str, arguments: dict[str, Any]) -> tuple[Any, str]:
        """`call`, plus the result as the JSON text a tool message carries."""
        if name in (GET_CONNECTED_NODES, GET_RELEVANT_CONTEXT) and len(arguments) <= 2:
            key = (name, str(arguments.get("node_id")), arguments.get("via"))
            hit = self._json.get(key)
            if hit is None:
                result = self.call(name, arguments)
                hit = self._json[key] = (result, json.dumps(result, ensure_ascii=False))
            return hit
        result = self.call(name, arguments)
        if hasattr(result, "model_dump_json"):
            return result, result.model_dump_json()
        return result, json.dumps(result, ensure_ascii=False)

    def get_connected_nodes(self, node_id: str) -> list[str]:
        """Out-neighbour ids ranked by node score (descending); ties keep graph order."""
        cached = self._ranked.get(node_id)
        if cached is not None:
            return cached
        nbs = self.store.out_neighbours(node_id)
        scores = self.scores
        order = sorted(range(len(nbs)), key=lambda i: (-scores.get(nbs[i].id), i))
        ranked = [nbs[i].id for i in order]
        self._ranked[node_id] = ranked
        return ranked

    def get_relevant_context(self, node_id: str, via: str | None = None) -> dict[str, Any]:
        """Evidence for a node; `via` is the node the agent came from, for the edge's why."""
        node = self.store.node(node_id)
        evidence: dict[str, Any] = {"node_id": node.id, "content": node.content}
        if via is not None:
            edge = self.store.edge(via, node_id)
            if edge is not None:
                evidence["reached_from"] = via
                evidence["relationship"] = edge.relationship
                evidence["rationale"] = edge.rationale
        if node.verification is not None:
            v = node.verification
            evidence["verification"] = {
                k: val
                for k, val in (
                    ("verified", v.verified),
                    ("confidence", v.confidence),
                    ("summary", v.summary),
                )
                if val is not None
            }
        evidence["citations"] = [node.id]
        return evidence

    def finalize_email(self, subject: str, body: str, citations: list[str]) -> FinalEmail:
        """Ends a rollout. Citations are kept as given, unknown ids included: the judge
        sees and penalises them rather than the tool hiding them."""
        return FinalEmail(subject=subject, body=body, citations=list(citations))

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Dispatch a tool call by name (what an LLM policy's tool call becomes)."""
        if name == GET_CONNECTED_NODES:
            return self.get_connected_nodes(_node_arg(arguments))
        if name == GET_RELEVANT_CONTEXT:
            return self.get_relevant_context(_node_arg(arguments), arguments.get("via"))
        if name == FINALIZE_EMAIL:
            return self.finalize_email(
                str(arguments.get("subject", "")),
                str(arguments.get("body", "")),
                [str(c) for c in arguments.get("citations") or []],
            )
        raise UnknownToolError(name, TOOL_NAMES)


def _node_arg(arguments: dict[str, Any]) -> str:
    node_id = arguments.get("node_id")
    if not isinstance(node_id, str):
        raise UnknownNodeError(repr(node_id))
    return node_id
