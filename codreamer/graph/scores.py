"""Per-run node scores: a run's own copy, reconciled with its graph, never shared.

A score estimates how well the emails citing a node do (DESIGN §3, step 4):
every node starts at a neutral prior (0.5); each judged email moves each node
it cites toward its reward by a running mean with a step (default 0.1); nodes
no email cited keep the prior. So a dark node on the dashboard was cited by
emails that scored well, a pale one by emails that scored badly, and a node at
0.5 is one the run has no evidence about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

DEFAULT_SCORE = 0.5  # the neutral prior: no evidence either way
DEFAULT_STEP = 0.1


def _clamp(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


class NodeScores:
    """Scores in [0, 1] for every node of one graph.

    Reconciliation: ids not in the graph are dropped, missing ids start at the
    neutral prior 0.5, values are clamped.
    """

    def __init__(self, node_ids: Iterable[str], initial: Mapping[str, float] | None = None) -> None:
        initial = initial or {}
        # Bumped on every update, so callers can cache what depends on the scores.
        self.version = 0
        self._scores: dict[str, float] = {}
        for nid in node_ids:
            v = initial.get(nid, DEFAULT_SCORE)
            try:
                f = float(v)
            except (TypeError, ValueError):
                f = DEFAULT_SCORE
            if f != f:  # NaN
                f = DEFAULT_SCORE
            self._scores[nid] = _clamp(f)

    def __getitem__(self, node_id: str) -> float:
        return self._scores[node_id]

    def get(self, node_id: str, default: float = DEFAULT_SCORE) -> float:
        return self._scores.get(node_id, default)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._scores

    def __len__(self) -> int:
        return len(self._scores)

    def snapshot(self) -> dict[str, float]:
        """A copy: callers can keep it while the scores move on."""
        return dict(self._scores)

    def copy(self) -> NodeScores:
        return NodeScores(self._scores.keys(), self._scores)

    def update(
        self,
        cited_rewards: Iterable[tuple[Iterable[str], float]],
        step: float = DEFAULT_STEP,
    ) -> None:
        """DESIGN §3 step 4: each cited node moves toward its trajectory's reward.

        `cited_rewards` holds (citations, reward) of every judged trajectory.
        Unknown ids are ignored. Applied in the given order, so the result is
        deterministic.
        """
        self.version += 1
        for citations, reward in cited_rewards:
            r = _clamp(float(reward))
            for nid in dict.fromkeys(citations):  # each node once per trajectory
                if nid in self._scores:
                    s = self._scores[nid]
                    self._scores[nid] = _clamp(s + step * (r - s))
