"""Rank statistics for the judge benchmarks (numpy only)."""

from __future__ import annotations

import numpy as np


def ranks(x: np.ndarray) -> np.ndarray:
    """Ranks with ties averaged (as scipy.stats.rankdata)."""
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x))
    sx = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sx[j + 1] == sx[i]:
            j += 1
        r[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return r


def spearman(a: list[float] | np.ndarray, b: list[float] | np.ndarray) -> float:
    ra, rb = ranks(np.asarray(a, float)), ranks(np.asarray(b, float))
    if ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


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
