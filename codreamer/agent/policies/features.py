"""What the embedded policy sees: per-scenario node features, and the record of a choice.

Features of a candidate node (NODE_FEATURES): its run score, the relevance of
its content to the prospect and goal, progress toward a Product Feature,
whether it is one, whether one can be reached from it, and its verification
confidence. FINISH is scored on FINISH_FEATURES of the current position.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from codreamer.agent.compose import N_CTAS, N_OPENINGS, N_SUBJECTS, EmailStyle, compose_email
from codreamer.graph.schema import is_product_feature
from codreamer.graph.store import GraphStore
from codreamer.models import FinalEmail, Scenario, Sender

NODE_FEATURES = ("score", "relevance", "progress", "is_feature", "reaches_feature", "confidence")
FINISH_FEATURES = ("bias", "at_feature", "hops_fraction", "can_reach_feature")
STYLE_HEADS = (("subject", N_SUBJECTS), ("opening", N_OPENINGS), ("cta", N_CTAS))
EMAIL_CACHE_SIZE = 50_000  # bound of each memo here; cleared when full

_WORD = re.compile(r"[a-z][a-z0-9+#-]{2,}")
# Words too common to say anything about relevance.
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "your",
        "their",
        "our",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "not",
        "but",
        "can",
        "will",
        "its",
        "his",
        "her",
        "they",
        "them",
        "you",
        "who",
        "what",
        "when",
        "where",
        "which",
        "how",
        "all",
        "any",
        "more",
        "most",
        "such",
        "than",
        "then",
        "there",
        "these",
        "those",
        "about",
        "over",
        "under",
        "also",
        "just",
        "very",
        "each",
        "other",
    ]
)


def tokens(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


@dataclass(slots=True)
class Decision:
    """One choice, with what is needed to re-score it under new parameters."""

    head: str  # "node" or a style head name
    chosen: int
    logprob: float
    key: Any = None  # identifies the inputs, for the sampling-time logits memo
    cand: np.ndarray | None = None  # node indices of the candidates (node head)
    x: np.ndarray | None = None  # candidate features, (k, F)
    psi: np.ndarray | None = None  # FINISH features, (G,)


class ScenarioFeatures:
    """Per-scenario, per-node feature cache (relevance is scenario-specific)."""

    def __init__(self, store: GraphStore, scenario: Scenario, sender: Sender | None = None) -> None:
        self.store = store
        self.sender = sender or Sender()
        p = scenario.prospect
        words = " ".join(
            [
                scenario.goal,
                p.title or "",
                p.company or "",
                p.industry or "",
                " ".join(p.tech_stack),
            ]
        )
        self.query = tokens(words)
        self.scenario = scenario
        self._static: dict[str, np.ndarray] = {}
        # compose_email is pure; a run writes the same (path, style) email many
        # times, so each is rendered once. Bounded: cleared when it grows large.
        self._emails: dict[tuple[tuple[str, ...], EmailStyle], tuple[FinalEmail, str]] = {}
        # Node-choice inputs for (node, candidates, hops, scores version).
        self.decisions: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _composed(self, path: list[str], style: EmailStyle) -> tuple[FinalEmail, str]:
        key = (tuple(path), style)
        hit = self._emails.get(key)
        if hit is None:
            if len(self._emails) >= EMAIL_CACHE_SIZE:
                self._emails.clear()
            email = compose_email(self.store, path, self.scenario, style, self.sender)
            hit = self._emails[key] = (email, json.dumps(email.model_dump(), ensure_ascii=False))
        return hit

    def compose(self, path: list[str], style: EmailStyle) -> FinalEmail:
        return self._composed(path, style)[0].model_copy()

    def finalize_arguments(self, path: list[str], style: EmailStyle) -> str:
        """The finalize_email call's JSON arguments, rendered once with the email."""
        return self._composed(path, style)[1]

    def static(self, node_id: str) -> np.ndarray:
        """Features that do not change during a run (all but the node score)."""
        f = self._static.get(node_id)
        if f is None:
            node = self.store.node(node_id)
            hops = self.store.hops_to_feature(node_id)
            overlap = len(tokens(node.content) & self.query) if self.query else 0
            conf = 0.0
            if node.verification is not None:
                v = node.verification
                conf = v.confidence if v.confidence is not None else (1.0 if v.verified else 0.0)
            f = np.array(
                [
                    0.0,  # score, filled per decision
                    min(1.0, overlap / 3.0),
                    0.0 if hops is None else -float(hops),  # made relative per decision
                    1.0 if is_product_feature(node_id) else 0.0,
                    0.0 if hops is None else 1.0,
                    conf,
                ]
            )
            self._static[node_id] = f
        return f
