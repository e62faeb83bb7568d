"""Helpers shared by the benchmarks (not a test module)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED_KG = REPO.parent / "shared" / "kg"
# Benchmarks run as `python benchmarks/x.py`, so only benchmarks/ is on sys.path, and
# `codreamer` comes from the editable install, appended after site-packages. The
# launchers they share with the tests (tests/support/) need the checkout itself, and
# first: an installed distribution ships a top-level `tests` package that would win.
# So a benchmark imports `_common` before `tests.support` (isort keeps that order:
# `_common` sorts with the third-party imports, `tests` with the first-party ones).
sys.path.insert(0, str(REPO))

GRAPHS = {
    "data/graph.json": REPO / "data" / "graph.json",
    "synthetic-data-16": SHARED_KG / "synthetic-data-16.json",
    "weave-feedback-5": SHARED_KG / "weave-feedback-5.json",
}


def emit(result: dict[str, Any]) -> None:
    print(json.dumps(result, indent=2))


def generated_graph(n: int, seed: int = 0, out_degree: int = 3) -> list[dict[str, Any]]:
    """A layered random graph of n nodes: Customer Job -> layers -> Product Feature,
    with some back edges and dead ends, like the generator's graphs but bigger."""
    rng = random.Random(seed)
    words = (
        "data",
        "model",
        "pipeline",
        "latency",
        "quality",
        "cost",
        "compliance",
        "team",
        "evaluation",
        "feedback",
        "labels",
        "drift",
        "monitoring",
        "training",
        "review",
    )
    ids = ["Customer Job"] + [f"n{i}" for i in range(1, n - 1)] + ["Product Feature"]
    layers = 4  # so a Product Feature is 5 hops from Customer Job, within depth 5
    layer_of = {nid: 1 + (i * layers) // n for i, nid in enumerate(ids)}
    layer_of["Customer Job"], layer_of["Product Feature"] = 0, layers + 1
    by_layer: dict[int, list[str]] = {}
    for nid, layer in layer_of.items():
        by_layer.setdefault(layer, []).append(nid)
    nodes = []
    for nid in ids:
        layer = layer_of[nid]
        nxt = by_layer.get(layer + 1) or by_layer[layers + 1]
        targets = set(rng.sample(nxt, min(out_degree, len(nxt))))
        if rng.random() < 0.2 and layer > 1:
            targets.add(rng.choice(by_layer[layer - 1]))  # a back edge (cycle)
        if layer == layers and rng.random() < 0.5:
            targets.add("Product Feature")
        content = " ".join(rng.choice(words) for _ in range(12)).capitalize() + "."
        nodes.append(
            {
                "id": nid,
                "content": content,
                "edges": [
                    {
                        "target": t,
                        "relationship": "relates to",
                        "rationale": "It connects the customer's work to what the product does.",
                    }
                    for t in sorted(targets)
                    if t != nid
                ],
            }
        )
    return nodes
