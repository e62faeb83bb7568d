"""Graph parsing and validation: one test per validation error, each checking that
the message names the node or edge at fault."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from codreamer.errors import GraphTooLargeError, GraphValidationError
from codreamer.graph.schema import parse_graph


def good() -> list[dict[str, Any]]:
    return [
        {"id": "Customer Job", "content": "Runs a bakery.",
         "edges": [{"target": "Ovens", "label": "uses", "rationale": "Bread needs ovens."}]},
        {"id": "Ovens", "content": "Ovens break.",
         "edges": [{"target": "Product Feature", "label": "fixed by"}]},
        {"id": "Product Feature", "content": "Oven monitoring."},
    ]  # fmt: skip


def problems(data: Any, **kw: Any) -> list[str]:
    with pytest.raises(GraphValidationError) as info:
        parse_graph(data, **kw)
    return [str(p) for p in info.value.problems]


def test_good_graph_parses() -> None:
    nodes = parse_graph(good())
    assert [n.id for n in nodes] == ["Customer Job", "Ovens", "Product Feature"]
    assert nodes[0].edges[0].relationship == "uses"
    assert nodes[0].edges[0].rationale == "Bread needs ovens."


def test_duplicate_id() -> None:
    g = good() + [{"id": "Ovens", "content": "again"}]
    (msg,) = problems(g)
    assert "'Ovens'" in msg and "duplicate" in msg


def test_empty_id() -> None:
    g = good() + [{"id": "  ", "content": "x"}]
    (msg,) = problems(g)
    assert "node #3" in msg and "empty" in msg


def test_edge_to_unknown_node() -> None:
    g = good()
    g[1]["edges"].append({"target": "Nowhere"})
    (msg,) = problems(g)
    assert "edge #1 of node 'Ovens'" in msg and "'Nowhere'" in msg


def test_no_customer_job() -> None:
    g = good()
    g[0]["id"] = "Start"
    (msg,) = problems(g)
    assert "'Customer Job'" in msg and "no" in msg


def test_no_product_feature() -> None:
    g = good()[:2]
    g[1]["edges"] = []
    (msg,) = problems(g)
    assert "Product Feature" in msg


def test_no_path_from_customer_job_to_product_feature() -> None:
    g = good()
    g[1]["edges"] = []
    (msg,) = problems(g)
    assert msg.startswith("node 'Customer Job'") and "no directed path" in msg


@pytest.mark.parametrize(
    ("mutate", "where", "what"),
    [
        (lambda g: g[1].__setitem__("id", 7), "node #1", "`id` must be a string"),
        (lambda g: g[1].__setitem__("content", ["x"]), "node 'Ovens'", "`content`"),
        (lambda g: g[1].__setitem__("edges", "Product Feature"), "node 'Ovens'", "`edges`"),
        (lambda g: g[1]["edges"].__setitem__(0, {"target": 3}), "edge #0 of node 'Ovens'",
         "target"),
        (lambda g: g[1]["edges"].__setitem__(0, "Product Feature"), "edge #0 of node 'Ovens'",
         "must be an object"),
        (lambda g: g[1]["edges"][0].__setitem__("label", 5), "edge #0 of node 'Ovens'",
         "`relationship`"),
        (lambda g: g[1].__setitem__("verification", "yes"), "node 'Ovens'", "`verification`"),
        (lambda g: g[1].__setitem__("verification", {"confidence": 3}), "node 'Ovens'",
         "verification"),
        (lambda g: g.__setitem__(0, "Customer Job"), "node #0", "must be an object"),
    ],
    ids=["id", "content", "edges", "edge-target", "edge-object", "relationship",
         "verification-type", "verification-range", "node-object"],
)  # fmt: skip
def test_wrong_types_name_the_culprit(mutate: Any, where: str, what: str) -> None:
    g = good()
    mutate(g)
    msgs = problems(g)
    assert any(m.startswith(where) and what in m for m in msgs), msgs


def test_not_a_list() -> None:
    assert "must be a list" in problems("x")[0]
    assert "as `graph`" in problems({"id": "x"})[0]


def test_over_node_cap() -> None:
    g = good() + [{"id": f"n{i}"} for i in range(10)]
    with pytest.raises(GraphTooLargeError) as info:
        parse_graph(g, max_nodes=5)
    assert "13 nodes" in str(info.value) and "cap of 5" in str(info.value)


def test_both_edge_shapes_parse_identically() -> None:
    canonical = good()
    original = copy.deepcopy(canonical)
    for node in original:
        edges = node.pop("edges", [])
        node["edge"] = [
            {"target_id": e["target"], "relationship": e.get("label", ""),
             **({"rationale": e["rationale"]} if "rationale" in e else {})}
            for e in edges
        ]  # fmt: skip
    assert parse_graph(original) == parse_graph(canonical)
    assert [n.to_json() for n in parse_graph(original)] == [
        n.to_json() for n in parse_graph(canonical)
    ]


def test_nodes_wrapper_accepted() -> None:
    assert len(parse_graph({"nodes": good()})) == 3


def test_all_problems_reported_at_once() -> None:
    g = good() + [{"id": "Ovens"}, {"id": ""}]
    g[0]["edges"].append({"target": "Ghost"})
    g[1]["content"] = 42
    msgs = problems(g)
    joined = "\n".join(msgs)
    assert len(msgs) >= 4
    assert "duplicate" in joined and "empty" in joined
    assert "'Ghost'" in joined and "`content`" in joined
