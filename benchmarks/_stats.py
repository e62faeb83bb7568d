"""Rank statistics for the judge benchmarks (numpy only)."""

from __future__ import annotations

import numpy as np

# Ranks and Spearman are the judge's own (the agents' team refit reports the same).
from codreamer.judge.agreement import ranks, spearman

__all__ = ["auc", "pairwise_accuracy", "ranks", "spearman"]


def auc(pos: list[float], neg: list[float]) -> float:
    """P(a positive scores above a negative), ties counting half."""
    if not pos or not neg:
        return float("nan")
    p = np.asarray(pos)[:, None]
    n = np.asarray(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def pairwise_accuracy(scores: list[float], grades: list[float], gap: float = 1.0) -> float:
    s = np.asarray(scores)
    g = np.asarray(grades)
    i, j = np.nonzero(g[:, None] - g[None, :] >= gap)
    if not len(i):
        return float("nan")
    return float(((s[i] > s[j]).sum() + 0.5 * (s[i] == s[j]).sum()) / len(i))
