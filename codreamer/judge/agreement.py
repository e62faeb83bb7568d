"""Rank agreement between a judge and people's grades (Spearman), numpy only."""

from __future__ import annotations

from collections.abc import Sequence

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


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rho; 0 when either side has no spread (nothing to agree on)."""
    ra, rb = ranks(np.asarray(a, float)), ranks(np.asarray(b, float))
    if len(ra) < 2 or ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])
