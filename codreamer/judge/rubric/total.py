"""The rubric's total: a small model fitted on readers' grades (DESIGN §4).

    z     = bias + sum_k  w_k * log(EPS + x_k)   (w_k >= 0: monotone, a better
                                                  criterion never lowers the total)
    total = sigmoid(z) / sigmoid(z_top) * english

`z_top` is z with every criterion at 1, so an email perfect on every criterion
scores 1 and the scale reads the same whatever the fit (a monotone rescaling: the
ranking, which is what the fit is for, does not change); `english` is 0 for an
empty or non-English email.

`x_k` is criterion k's score in [0, 1]. The log makes the model multiplicative (a
weighted geometric mean): readers grade an email by its worst problem, and one
criterion near 0 sinks it however good the rest is, which a weighted sum cannot
do; on the tuning graphs, fitted leave-one-graph-out, it ranks as readers do
better than the linear form (Spearman 0.675 against 0.655). A criterion that cannot be scored (no
graph, nothing known of the prospect, no title) takes its `neutral` value, the
mean the fitting corpus gave it, so it neither helps nor hurts. The parameters
live in `total.json` beside this file; `benchmarks/fit_judge.py` refits them on
the graded corpus (or on a team's own ratings) with `fit` below: a logistic
regression on the mean reader grade scaled to [0, 1], plus a pairwise ranking
term on pairs whose grades differ, weights kept non-negative by projection.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

FEATURES = (
    "argument",
    "grounding",
    "relevance",
    "specificity",
    "product",
    "solution_fit",
    "own_job",
    "fit",
    "call_to_action",
    "personalisation",
    "concision",
    "readability",
    "contradiction",
    "deception",
    "tone",
    "grammar",
    "naturalness",
    "sendability",
)
GATES = ("english",)
CRITERIA = FEATURES + GATES
PARAMS_FILE = Path(__file__).with_name("total.json")
EPS = 0.05


def transform(x: float) -> float:
    return math.log(EPS + x)


@dataclass(frozen=True)
class FittedTotal:
    bias: float
    weights: dict[str, float]
    neutral: dict[str, float]
    meta: dict[str, object] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None) -> FittedTotal:
        data = json.loads((path or PARAMS_FILE).read_text())
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> FittedTotal:
        w = data["weights"]
        n = data["neutral"]
        assert isinstance(w, dict) and isinstance(n, dict)
        missing = [k for k in FEATURES if k not in w or k not in n]
        if missing:
            raise ValueError(f"judge total parameters lack {', '.join(missing)}")
        bias = data["bias"]
        assert isinstance(bias, (int, float))
        meta = data.get("meta", {})
        return cls(
            float(bias),
            {k: max(0.0, float(w[k])) for k in FEATURES},
            {k: float(n[k]) for k in FEATURES},
            meta if isinstance(meta, dict) else {},
        )

    def as_dict(self) -> dict[str, object]:
        return {"bias": self.bias, "weights": self.weights, "neutral": self.neutral,
                "meta": self.meta}  # fmt: skip

    def z(self, scores: dict[str, float], unscored: frozenset[str] = frozenset()) -> float:
        return self.bias + sum(
            w * transform(self.neutral[k] if k in unscored else scores[k])
            for k, w in self.weights.items()
        )

    def total(self, scores: dict[str, float], unscored: frozenset[str] = frozenset()) -> float:
        english = scores.get("english", 1.0)
        if english <= 0.0:
            return 0.0
        return min(1.0, _sigmoid(self.z(scores, unscored)) / self.top) * min(1.0, english)

    @cached_property
    def top(self) -> float:
        """sigmoid(z) of an email with every criterion at 1 (the scale's 1); the
        parameters are frozen, so it is worked out once."""
        return _sigmoid(self.bias + transform(1.0) * sum(self.weights.values()))

    def contributions(
        self, scores: dict[str, float], unscored: frozenset[str] = frozenset()
    ) -> dict[str, float]:
        """Each criterion's push on z against a neutral email (for --explain)."""
        return {
            k: 0.0 if k in unscored else w * (transform(scores[k]) - transform(self.neutral[k]))
            for k, w in self.weights.items()
        }

    def shares(self, unscored: frozenset[str] = frozenset()) -> dict[str, float]:
        """Each scored criterion's weight as a share of all (the `weight` reported)."""
        live = {k: w for k, w in self.weights.items() if k not in unscored}
        s = sum(live.values()) or 1.0
        return {k: live.get(k, 0.0) / s for k in FEATURES}

    def ceiling(self, caps: dict[str, float]) -> float:
        """An upper bound on the total when criterion k can reach at most caps[k]
        (others 1, or their neutral value if higher)."""
        z = self.bias + sum(
            w * transform(max(caps.get(k, 1.0), 0.0 if k in caps else self.neutral[k]))
            for k, w in self.weights.items()
        )
        return min(1.0, _sigmoid(z) / self.top)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


_DEFAULT: FittedTotal | None = None


def default_total() -> FittedTotal:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = FittedTotal.load()
    return _DEFAULT


# -- fitting ---------------------------------------------------------------------


def fit(
    x: np.ndarray,
    grades: np.ndarray,
    *,
    l2: float = 0.001,
    pair_weight: float = 1.0,
    pair_gap: float = 0.5,
    steps: int = 4000,
    lr: float = 0.05,
    seed: int = 0,
) -> tuple[float, np.ndarray]:
    """Fit (bias, weights >= 0) so that sigmoid(bias + x @ w) follows the grades.

    x: (n, k) criterion scores in [0, 1]; grades: (n,) mean reader grades 1-5.
    Loss: cross-entropy against (grade - 1) / 4, plus `pair_weight` times a pairwise
    logistic loss over pairs whose grades differ by at least `pair_gap` (the order
    readers give), plus an L2 penalty. Adam, weights projected onto w >= 0.
    Deterministic for a given input and seed.
    """
    n, k = x.shape
    y = np.clip((grades - 1.0) / 4.0, 0.0, 1.0)
    rng = np.random.default_rng(seed)
    i_idx, j_idx = np.nonzero(grades[:, None] - grades[None, :] >= pair_gap)
    if len(i_idx) > 20000:
        pick = rng.choice(len(i_idx), 20000, replace=False)
        i_idx, j_idx = i_idx[pick], j_idx[pick]
    w = np.full(k, 0.5)
    b = np.array(0.0)
    m = np.zeros(k + 1)
    v = np.zeros(k + 1)
    b1, b2, eps = 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        z = x @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        gz = (p - y) / n
        gw = x.T @ gz + l2 * w
        gb = gz.sum()
        if len(i_idx) and pair_weight:
            d = z[i_idx] - z[j_idx]
            s = -1.0 / (1.0 + np.exp(d)) / len(i_idx) * pair_weight
            gw += (x[i_idx] - x[j_idx]).T @ s
        g = np.concatenate([gw, [gb]])
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        step = lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
        w = np.maximum(0.0, w - step[:k])
        b = b - step[k]
    return float(b), w


def fit_total(
    rows: list[tuple[dict[str, float], frozenset[str], float]],
    meta: dict[str, object] | None = None,
    **options: float,
) -> FittedTotal:
    """Fit the total on judged emails and their grades: each row is (criterion scores,
    the criteria not scored for that email, the mean grade 1-5). A criterion's
    neutral value is its mean where it was scored."""
    neutral: dict[str, float] = {}
    for k in FEATURES:
        vals = [s[k] for s, un, _ in rows if k not in un]
        neutral[k] = float(np.mean(vals)) if vals else 1.0
    x = np.log(
        EPS + np.array([[neutral[k] if k in un else s[k] for k in FEATURES] for s, un, _ in rows])
    )
    grades = np.array([g for _, _, g in rows], dtype=float)
    bias, w = fit(x, grades, **options)  # type: ignore[arg-type]
    return FittedTotal(
        round(bias, 6),
        {k: round(float(v), 6) for k, v in zip(FEATURES, w, strict=True)},
        {k: round(v, 6) for k, v in neutral.items()},
        dict(meta or {}),
    )


def unscored_of(criteria_reasons: dict[str, str]) -> frozenset[str]:
    """The criteria a judgement did not score (their reason says so)."""
    return frozenset(k for k, why in criteria_reasons.items() if why.endswith("not scored"))
