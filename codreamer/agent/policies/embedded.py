"""The embedded policy: a small stochastic NumPy policy over the graph (DESIGN §3).

Decisions of one rollout:
  * at each node, the next node among the unvisited out-neighbours, or FINISH
    (arriving at a Product Feature node ends the walk: the argument is made);
  * when finishing, the email's style: subject form, opening, call-to-action form.
Node logits are linear in candidate features plus a learned per-node bias; the
FINISH logit is linear in features of the current position; style heads are
free logits. All parameters but the FINISH bias start at zero (see
INITIAL_FINISH_BIAS) and are learned by the `grpo` trainer (codreamer/train/grpo.py),
which owns the optimiser: this module only acts and never imports train/. No GPU,
no network, microseconds a choice. Features live in features.py, one rollout's
walk in session.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from codreamer.agent.policies.base import PolicyBase
from codreamer.agent.policies.features import (
    EMAIL_CACHE_SIZE,
    FINISH_FEATURES,
    NODE_FEATURES,
    STYLE_HEADS,
    Decision,
    ScenarioFeatures,
    tokens,
)
from codreamer.agent.policies.session import EmbeddedSession
from codreamer.agent.rollout import RolloutEnv
from codreamer.graph.store import GraphStore
from codreamer.models import Scenario, Sender

__all__ = [
    "FINISH_FEATURES",
    "NODE_FEATURES",
    "STYLE_HEADS",
    "Decision",
    "EmbeddedPolicy",
    "EmbeddedSession",
    "ScenarioFeatures",
    "tokens",
]

# The one prior: start out curious. A FINISH logit of -1 makes a new agent
# research a few hops before writing instead of stopping at the seed half the
# time, so a group of rollouts reaches a Product Feature often enough to learn
# from; everything else starts at zero (uniform).
INITIAL_FINISH_BIAS = -1.0


class ParamLayout:
    """Slices of the flat parameter vector."""

    def __init__(self, n_nodes: int) -> None:
        f, g = len(NODE_FEATURES), len(FINISH_FEATURES)
        self.w = slice(0, f)
        self.v = slice(f, f + g)
        self.b = slice(f + g, f + g + n_nodes)
        off = f + g + n_nodes
        self.style: dict[str, slice] = {}
        for name, n in STYLE_HEADS:
            self.style[name] = slice(off, off + n)
            off += n
        self.size = off


def _log_softmax(z: np.ndarray) -> np.ndarray:
    m = z.max()
    e = z - m
    return e - math.log(float(np.exp(e).sum()))


class EmbeddedPolicy(PolicyBase):
    name = "embedded"

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.node_ids = list(store.nodes)
        self.index = {n: i for i, n in enumerate(self.node_ids)}
        self.layout = ParamLayout(len(self.node_ids))
        # Sampling-time logits by decision key; valid while theta is unchanged.
        self._logits_memo: dict[Any, list[float]] = {}
        theta = np.zeros(self.layout.size)
        theta[self.layout.v.start] = INITIAL_FINISH_BIAS
        self.theta = theta
        self._features: dict[tuple[str, str, str], ScenarioFeatures] = {}

    @property
    def theta(self) -> np.ndarray:
        """The flat parameter vector. Assigning it drops the logits memo; after
        changing it in place, call `invalidate()`."""
        return self._theta

    @theta.setter
    def theta(self, value: np.ndarray) -> None:
        self._theta = value
        self._logits_memo.clear()

    def invalidate(self) -> None:
        self._logits_memo.clear()

    # -- features ------------------------------------------------------------
    def scenario_features(
        self, scenario: Scenario, sender: Sender | None = None
    ) -> ScenarioFeatures:
        sender = sender or Sender()
        key = (scenario.id, scenario.goal, scenario.prospect.model_dump_json(), sender)
        sf = self._features.get(key)
        if sf is None:
            sf = self._features[key] = ScenarioFeatures(self.store, scenario, sender)
        return sf

    # -- logits (shared by sampling and training) ------------------------------
    def logits(self, d: Decision, theta: np.ndarray) -> np.ndarray:
        lay = self.layout
        if d.head == "node":
            assert d.x is not None and d.cand is not None and d.psi is not None
            z = np.empty(len(d.cand) + 1)
            z[:-1] = d.x @ theta[lay.w] + theta[lay.b][d.cand]
            z[-1] = d.psi @ theta[lay.v]
            return z
        return theta[lay.style[d.head]].copy()

    def logprob_and_dlogits(self, d: Decision, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """log pi(chosen) under `theta`, and its gradient w.r.t. the logits (onehot - p)."""
        lp = _log_softmax(self.logits(d, theta))
        g = -np.exp(lp)
        g[d.chosen] += 1.0
        return float(lp[d.chosen]), g

    def add_grad(self, d: Decision, g: np.ndarray, scale: float, out: np.ndarray) -> None:
        lay = self.layout
        if d.head == "node":
            assert d.x is not None and d.cand is not None and d.psi is not None
            gk = g[:-1] * scale
            out[lay.w] += d.x.T @ gk
            np.add.at(out[lay.b], d.cand, gk)
            out[lay.v] += d.psi * (g[-1] * scale)
        else:
            out[lay.style[d.head]] += g * scale

    # -- sampling ----------------------------------------------------------------
    def choose(self, d: Decision, rng: np.random.Generator, greedy: bool) -> Decision:
        # Choices have a handful of options: plain floats beat NumPy's per-call
        # overhead here, and this runs ~10 times a rollout.
        z = self._logits_memo.get(d.key) if d.key is not None else None
        if z is None:
            z = self.logits(d, self.theta).tolist()
            if d.key is not None:
                if len(self._logits_memo) >= EMAIL_CACHE_SIZE:
                    self._logits_memo.clear()
                self._logits_memo[d.key] = z
        m = max(z)
        exps = [math.exp(v - m) for v in z]
        total = sum(exps)
        if greedy:
            # Ties (every option at first, when all parameters are zero) are
            # broken by the rollout's seeded generator, not by option order.
            best = [i for i, v in enumerate(z) if v == m]
            k = best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]
        else:
            u = rng.random() * total
            k, acc = len(z) - 1, 0.0
            for i, e in enumerate(exps):
                acc += e
                if u < acc:
                    k = i
                    break
        d.chosen = k
        d.logprob = (z[k] - m) - math.log(total)
        return d

    def start(self, env: RolloutEnv, rng: np.random.Generator, greedy: bool) -> EmbeddedSession:
        return EmbeddedSession(self, env, rng, greedy)

    # -- persistence --------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {
            "policy": self.name,
            "node_ids": self.node_ids,
            "node_features": list(NODE_FEATURES),
            "finish_features": list(FINISH_FEATURES),
            "style_heads": {n: k for n, k in STYLE_HEADS},
            "theta": self.theta.tolist(),
            "readable": self.readable(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("node_ids") != self.node_ids:
            raise ValueError("policy state belongs to a different graph")
        self.theta = np.asarray(state["theta"], dtype=float)

    def readable(self) -> dict[str, Any]:
        """The learned weights by name, for people reading iter{k}_policy.json."""
        lay, t = self.layout, self.theta
        return {
            "node_weights": dict(zip(NODE_FEATURES, t[lay.w].round(4).tolist(), strict=True)),
            "finish_weights": dict(zip(FINISH_FEATURES, t[lay.v].round(4).tolist(), strict=True)),
            "style_logits": {n: t[s].round(4).tolist() for n, s in lay.style.items()},
        }
