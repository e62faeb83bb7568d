from __future__ import annotations

from pathlib import Path

import pytest

from codreamer.agent.tools import (
    FINALIZE_EMAIL,
    GET_CONNECTED_NODES,
    GET_RELEVANT_CONTEXT,
    TOOL_NAMES,
    TOOL_SCHEMAS,
    AgentTools,
)
from codreamer.errors import UnknownNodeError, UnknownToolError
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_graph


@pytest.fixture()
def store(repo_root: Path) -> GraphStore:
    return load_graph(repo_root / "data" / "graph.json")


def test_schemas_match_tool_names() -> None:
    assert [s["function"]["name"] for s in TOOL_SCHEMAS] == list(TOOL_NAMES)
    for s in TOOL_SCHEMAS:
        assert s["type"] == "function"
        assert s["function"]["parameters"]["type"] == "object"


def test_connected_nodes_ranked_by_score(store: GraphStore) -> None:
    ids = [nb.id for nb in store.out_neighbours("Customer Job")]
    scores = NodeScores(store.nodes, {ids[0]: 0.1, ids[1]: 0.9, ids[2]: 0.5, ids[3]: 0.5})
    tools = AgentTools(store, scores)
    assert tools.get_connected_nodes("Customer Job") == [ids[1], ids[2], ids[3], ids[0]]
    # Scores move: the cached ranking is dropped by invalidate().
    scores.update([([ids[0]], 1.0)], step=1.0)
    tools.invalidate()
    assert tools.get_connected_nodes("Customer Job")[0] == ids[0]


def test_relevant_context(store: GraphStore) -> None:
    tools = AgentTools(store, NodeScores(store.nodes))
    ctx = tools.get_relevant_context("Temperature Excursions", via="Customer Job")
    assert ctx["content"] == store.content("Temperature Excursions")
    assert ctx["relationship"] == "is exposed to"
    assert ctx["rationale"]
    assert ctx["citations"] == ["Temperature Excursions"]
    assert ctx["verification"]["verified"] is True
    plain = tools.get_relevant_context("Driver Turnover")
    assert "relationship" not in plain and "verification" not in plain


def test_finalize_keeps_unknown_citations(store: GraphStore) -> None:
    tools = AgentTools(store, NodeScores(store.nodes))
    email = tools.call(FINALIZE_EMAIL, {"subject": "s", "body": "b", "citations": ["Ghost"]})
    assert email.citations == ["Ghost"]


def test_call_dispatch_and_errors(store: GraphStore) -> None:
    tools = AgentTools(store, NodeScores(store.nodes))
    assert tools.call(GET_CONNECTED_NODES, {"node_id": "Late Alerts"}) == ["Product Feature"]
    assert tools.call(GET_RELEVANT_CONTEXT, {"node_id": "Late Alerts"})["node_id"] == "Late Alerts"
    with pytest.raises(UnknownToolError, match="send_email"):
        tools.call("send_email", {})
    with pytest.raises(UnknownNodeError):
        tools.call(GET_CONNECTED_NODES, {"node_id": "Ghost"})
    with pytest.raises(UnknownNodeError):
        tools.call(GET_CONNECTED_NODES, {"node_id": 3})
