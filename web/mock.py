"""Sample data the page shows, labelled "mock data", when the backend cannot be reached.

Made up for the dashboard: it only has to look like a real result so the page
can be seen working before anything is running.
"""

from __future__ import annotations

from typing import Any

_NODES: list[tuple[str, str, float]] = [
    ("Customer Job", "A small bakery chain ships weekly menus to twelve shops by hand.", 0.74),
    ("Manual Menu Updates", "Menus are retyped in every shop, so prices drift.", 0.62),
    ("Price Mistakes", "Wrong prices at the till cost refunds and trust.", 0.55),
    ("Central Catalogue Need", "One source of truth for items and prices.", 0.68),
    ("Staff Time Lost", "Managers spend Monday mornings on menu edits.", 0.41),
    ("Sync Across Shops", "Changes must reach every shop before opening.", 0.59),
    ("Product Feature", "MenuSync publishes one catalogue to every shop's screens.", 0.83),
]
_EDGES: list[tuple[str, str, str]] = [
    ("Customer Job", "Manual Menu Updates", "struggles with"),
    ("Customer Job", "Staff Time Lost", "suffers"),
    ("Manual Menu Updates", "Price Mistakes", "causes"),
    ("Price Mistakes", "Central Catalogue Need", "creates"),
    ("Staff Time Lost", "Sync Across Shops", "points to"),
    ("Central Catalogue Need", "Product Feature", "is solved by"),
    ("Sync Across Shops", "Product Feature", "is solved by"),
]


def mock_data() -> dict[str, Any]:
    """A state in the shape of `GET /api/state`, plus a graph and run metrics."""
    scores = {n: s for n, _, s in _NODES}
    return {
        "mock": True,
        "state": {
            "version": 0,
            "active_run_id": None,
            "latest": {
                "run_id": "mock-run",
                "stage": "final",
                "iteration": 3,
                "iterations": 3,
                "email": {
                    "subject": "Dana, one menu for all twelve shops?",
                    "body": (
                        "Hi Dana,\n\nYour team retypes the weekly menu in every shop, and "
                        "prices drift between them.\n\nMenuSync publishes one catalogue to "
                        "every shop's screens before opening.\n\nWould a 20-minute call "
                        "next week make sense?"
                    ),
                    "citations": [
                        "Customer Job",
                        "Manual Menu Updates",
                        "Price Mistakes",
                        "Central Catalogue Need",
                        "Product Feature",
                    ],
                },
                "node_scores": scores,
                "metrics": {"mean": 0.71, "max": 0.86},
                "created_at": "2025-01-01T00:00:00Z",
                "received_at": "2025-01-01T00:00:00Z",
                "webhook_id": None,
            },
            "history": [
                {"iteration": 0, "stage": "baseline", "metrics": {"mean": 0.42, "max": 0.55}},
                {"iteration": 1, "stage": "iteration", "metrics": {"mean": 0.55, "max": 0.71}},
                {"iteration": 2, "stage": "iteration", "metrics": {"mean": 0.64, "max": 0.80}},
                {"iteration": 3, "stage": "final", "metrics": {"mean": 0.71, "max": 0.86}},
            ],
        },
        "graph": {
            "run_id": "mock-run",
            "nodes": [{"id": n, "content": c, "score": s} for n, c, s in _NODES],
            "edges": [{"source": a, "target": b, "relationship": r} for a, b, r in _EDGES],
        },
    }
