# ruff: noqa: E501  (generated sentences read better unwrapped)
"""A generated knowledge graph of about 60 nodes for the learning benchmark.

Unlike `_common.generated_graph` (random word salad: every node matches every
prospect a little), each branch here is about one topic, so prospects whose
notes name a topic have a best argument in a different part of the graph.
Layered: Customer Job -> 3 layers of topic facts (with cross-links between
topics and a few back edges) -> several Product Feature nodes.
"""

from __future__ import annotations

import random
from typing import Any

TOPICS: dict[str, dict[str, list[str]]] = {
    "latency": {
        "subjects": ["Slow dashboards", "Query latency", "Peak-hour response times", "Cold caches"],
        "objects": [
            "analysts waiting minutes for reports",
            "timeouts during month-end close",
            "p99 query times above ten seconds",
            "caching layers rebuilt by hand",
        ],
    },
    "compliance": {
        "subjects": [
            "Audit trails",
            "Data retention rules",
            "Access reviews",
            "GDPR deletion requests",
        ],
        "objects": [
            "auditors asking who changed which table",
            "records kept past the retention period",
            "quarterly access reviews done in spreadsheets",
            "deletion requests traced by hand",
        ],
    },
    "cost": {
        "subjects": ["Cloud spend", "Idle clusters", "Storage tiers", "Warehouse credits"],
        "objects": [
            "budgets overrun by forgotten jobs",
            "clusters left running all weekend",
            "hot storage used for archives",
            "finance asking why the bill doubled",
        ],
    },
    "quality": {
        "subjects": ["Schema drift", "Broken pipelines", "Data quality checks", "Null values"],
        "objects": [
            "upstream columns renamed without warning",
            "nightly loads failing silently",
            "dashboards showing stale numbers",
            "reports with missing rows",
        ],
    },
    "onboarding": {
        "subjects": [
            "New analysts",
            "Missing documentation",
            "Self-serve queries",
            "Tribal knowledge",
        ],
        "objects": [
            "weeks before a new hire ships a report",
            "tables nobody can explain",
            "the same questions asked on chat every week",
            "one engineer who knows the pipelines",
        ],
    },
}
VERBS = ["often leads to", "usually shows up as", "is made worse by", "goes hand in hand with"]
FEATURES = {
    "latency": "Product Feature: Query Acceleration",
    "compliance": "Product Feature: Lineage and Audit Log",
    "cost": "Product Feature: Cost Controls",
    "quality": "Product Feature",
    "onboarding": "Product Feature: Data Catalog",
}
FEATURE_TEXT = {
    "latency": "Brightwell caches hot tables and rewrites slow queries so dashboards load in seconds.",
    "compliance": "Brightwell records column-level lineage and every change, so an audit question is one search.",
    "cost": "Brightwell pauses idle clusters and moves cold data to cheaper storage automatically.",
    "quality": "Brightwell checks every load for schema drift, missing rows and nulls, and alerts before dashboards break.",
    "onboarding": "Brightwell documents every table with owners and example queries, so new analysts help themselves.",
}


def topic_graph(seed: int = 0, per_topic: int = 12) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    nodes: dict[str, dict[str, Any]] = {}
    layers: dict[str, list[list[str]]] = {}

    def add(nid: str, content: str) -> None:
        nodes[nid] = {"id": nid, "content": content, "edges": []}

    def link(a: str, b: str, why: str) -> None:
        if a != b and all(e["target"] != b for e in nodes[a]["edges"]):
            nodes[a]["edges"].append({"target": b, "relationship": "leads to", "rationale": why})

    add(
        "Customer Job",
        "Mid-size companies run a shared data warehouse that analysts, finance and "
        "product teams all depend on every day.",
    )
    for topic, words in TOPICS.items():
        ids: list[str] = []
        for k in range(per_topic - 1):
            subj = words["subjects"][k % len(words["subjects"])]
            obj = words["objects"][(k * 3 + 1) % len(words["objects"])]
            nid = f"{topic}-{k}-{rng.getrandbits(24):06x}"
            add(nid, f"{subj} {rng.choice(VERBS)} {obj}.")
            ids.append(nid)
        add(FEATURES[topic], FEATURE_TEXT[topic])
        third = max(1, len(ids) // 3)
        layers[topic] = [ids[:third], ids[third : 2 * third], ids[2 * third :]]
    for topic, (l1, l2, l3) in layers.items():
        why = f"When {TOPICS[topic]['subjects'][0].lower()} pile up, the next problem follows."
        for nid in l1:
            link("Customer Job", nid, "Every team that shares the warehouse feels this.")
            for t in rng.sample(l2, min(2, len(l2))):
                link(nid, t, why)
        for nid in l2:
            for t in rng.sample(l3, min(2, len(l3))):
                link(nid, t, why)
            if rng.random() < 0.3:  # a cross-link into another topic
                other = rng.choice([t for t in layers if t != topic])
                link(nid, rng.choice(layers[other][2]), "The two problems feed each other.")
        for nid in l3:
            link(nid, FEATURES[topic], "This is the gap the product closes.")
            if rng.random() < 0.2:  # a back edge (cycle)
                link(nid, rng.choice(l1), "And it starts over.")
    return list(nodes.values())
