"""The embedded policy: a small stochastic NumPy policy over the graph (DESIGN §3).

Decisions of one rollout:
  * at each node, the next node among the unvisited out-neighbours, or FINISH
    (arriving at a Product Feature node ends the walk: the argument is made);
  * when finishing, how to write: angle, register, length, ask, subject form.

Node logits are linear in candidate features (features.py), among them how
well the candidate and what lies beyond it match each thing known about the
prospect; the FINISH logit is linear in features of the current position.
Style logits are linear in option x prospect features (seniority, function,
notes, stack) and the walk's length. There are no per-node parameters: what
is learned is how much each kind of match is worth, so it transfers to
prospects and graphs not seen in training.

The policy only acts: it samples, and says how likely a choice was under given
parameters and how that likelihood moves (`logprob_and_dlogits`, `add_grad`).
Learning is the `grpo` trainer's (codreamer/train/grpo.py), which owns the
optimiser; nothing here imports train/. No GPU, no network, microseconds a choice.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from codreamer.agent.policies.features import (
    EMAIL_CACHE_SIZE,
    FINISH_FEATURES,
    MONOTONE_FEATURES,
    NODE_FEATURES,
    OWN_ONLY_FEATURES,
    STYLE_CONTEXT,
    STYLE_HEADS,
    Decision,
    ScenarioFeatures,
    tokens,
)
from codreamer.agent.policies.session import EmbeddedSession
from codreamer.agent.policies.shared import PolicyBase
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.style import EmailStyle
from codreamer.agent.trajectory import Trajectory, TrajectoryMeta
from codreamer.graph.store import GraphStore
from codreamer.models import Scenario, Sender

__all__ = [
    "FINISH_FEATURES",
    "NODE_FEATURES",
    "STYLE_CONTEXT",
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
# The most (walk, style) pairs remembered per prospect for avoiding repeats.
SEEN_CAP = 20_000
_P = len(STYLE_CONTEXT)


class ParamLayout:
    """Slices of the flat parameter vector: node weights, FINISH weights, and one
    (options x STYLE_CONTEXT) matrix per style head.

    What a walk values depends on who reads through the node features themselves
    (each candidate's match with the prospect's notes, title, industry and stack,
    and is_feature x seniority), so it carries over to prospects the policy has not
    seen. A run's prospects also get their own weights, a vector of this layout
    each (EmbeddedPolicy.personal), for their own greedy emails only."""

    def __init__(self) -> None:
        f, g = len(NODE_FEATURES), len(FINISH_FEATURES)
        self.w = slice(0, f)
        self.v = slice(f, f + g)
        off = f + g
        self.style: dict[str, slice] = {}
        self.options: dict[str, int] = {}
        for name, n in STYLE_HEADS:
            self.style[name] = slice(off, off + n * _P)
            self.options[name] = n
            off += n * _P
        self.size = off
        # Parameters the shared weights keep at zero (see OWN_ONLY_FEATURES).
        self.own_only = np.array(
            [self.w.start + NODE_FEATURES.index(n) for n in OWN_ONLY_FEATURES], dtype=int
        )
        # Parameters the shared weights keep >= 0 (see MONOTONE_FEATURES).
        self.monotone = np.array(
            [self.w.start + NODE_FEATURES.index(n) for n in MONOTONE_FEATURES], dtype=int
        )


LAYOUT = ParamLayout()


def _log_softmax(z: np.ndarray) -> np.ndarray:
    m = z.max()
    e = z - m
    return e - math.log(float(np.exp(e).sum()))


def _with_new_node_features(state: dict[str, Any], lay: ParamLayout) -> dict[str, Any]:
    """A state saved before node features were added (an agent kept from an earlier
    version), its weights moved to today's layout with the new features at zero: the
    agent walks as it did until it learns what they are worth. Any other difference
    is left for load_state_dict to refuse."""
    old = state.get("node_features")
    if not isinstance(old, list) or old == list(NODE_FEATURES) or not set(old) < set(NODE_FEATURES):
        return state
    n_old = len(old)
    theta = np.asarray(state["theta"], dtype=float)
    if theta.size != lay.size - (len(NODE_FEATURES) - n_old):
        return state
    where = [lay.w.start + NODE_FEATURES.index(f) for f in old]

    def moved(v: np.ndarray) -> np.ndarray:
        out = np.zeros(v.size + len(NODE_FEATURES) - n_old)
        out[where] = v[:n_old]
        out[lay.w.stop :] = v[n_old:]
        return out

    personal = state.get("personal") or {}
    return {
        **state,
        "node_features": list(NODE_FEATURES),
        "theta": moved(theta).tolist(),
        "personal": {k: moved(np.asarray(v, dtype=float)).tolist() for k, v in personal.items()},
    }


class EmbeddedPolicy(PolicyBase):
    name = "embedded"

    @classmethod
    def from_settings(
        cls, store: GraphStore, settings: Any = None, model: Any = None, prompt: Any = None
    ) -> EmbeddedPolicy:
        """The registry's factory: the embedded policy needs only the graph."""
        return cls(store)

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.node_ids = list(store.nodes)
        self.index = {n: i for i, n in enumerate(self.node_ids)}
        self.layout = LAYOUT
        # Sampling-time logits by decision key; valid while theta is unchanged.
        self._logits_memo: dict[Any, list[float]] = {}
        theta = np.zeros(self.layout.size)
        theta[self.layout.v.start] = INITIAL_FINISH_BIAS
        self.theta = theta
        self._features: dict[tuple[Any, ...], ScenarioFeatures] = {}
        # Sampling temperature: probabilities are softmax(logits / temperature).
        # The trainer sets it (GRPOConfig.temperature, raised while groups have
        # collapsed); greedy choices take the argmax and ignore it.
        self.temperature = 1.0
        # Share of a sampled group drawn uniformly at random (the trainer sets it:
        # GRPOConfig.explore_share, decaying); `_uniform` is on while they are drawn.
        self.explore_share = 0.0
        self._uniform = False
        # (walk, style) of the emails sampled so far, per scenario id: sampled rollouts
        # redraw a style that would repeat one (see EmbeddedSession._finalize). The
        # trainer fills and checkpoints it; empty (no avoidance) otherwise.
        self.seen_emails: dict[str, set[tuple[tuple[str, ...], EmailStyle]]] = {}
        self.avoid_repeats = False
        # Local search from each prospect's best email judged so far (the trainer sets
        # both: GRPOConfig.polish_share, and the elites' decisions by scenario id).
        # `_script` is the (walk, style) a polisher replays while it is drawn.
        self.polish_share = 0.0
        self.elite_decisions: dict[str, list[Decision]] = {}
        self._script: tuple[tuple[str, ...], EmailStyle] | None = None
        # Each trained prospect's own weights, by scenario id, added to the shared
        # `theta` for that prospect's decisions (Decision.own). Self-imitation trains
        # them alone, so what one prospect's best email needs is learned there and
        # not in the shared weights, which write for every prospect the policy has
        # not trained on. Empty: the shared weights alone.
        self.personal: dict[str, np.ndarray] = {}

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

    @property
    def own_size(self) -> int:
        """Size of a prospect's own weights: the shared layout, then one bias per node
        of the graph. The biases are tabular: they tell apart nodes whose features are
        alike (siblings that differ only by name), so self-imitation can make any
        elite walk the prospect's greedy one; they never reach the shared weights, so
        they cannot over-fit what transfers to other prospects."""
        return self.layout.size + len(self.node_ids)

    def set_personal(self, scenario_id: str, delta: np.ndarray) -> None:
        """Sets a prospect's own weights (drops the logits memo, as theta's setter)."""
        self.personal[scenario_id] = delta
        self._logits_memo.clear()

    # -- features ------------------------------------------------------------
    def scenario_features(
        self, scenario: Scenario, sender: Sender | None = None
    ) -> ScenarioFeatures:
        key = (scenario.model_dump_json(), repr(sender))
        sf = self._features.get(key)
        if sf is None:
            if len(self._features) >= 1024:
                self._features.clear()
            sf = self._features[key] = ScenarioFeatures(self.store, scenario, sender)
        return sf

    # -- logits (shared by sampling and training) ------------------------------
    def logits(self, d: Decision, theta: np.ndarray) -> np.ndarray:
        lay = self.layout
        assert d.x is not None
        own = self.personal.get(d.own) if d.own is not None else None
        if own is not None:
            theta = theta + own[: lay.size]
        if d.head == "node":
            assert d.psi is not None
            z = np.empty(d.x.shape[0] + 1)
            z[:-1] = d.x @ theta[lay.w]
            z[-1] = d.psi @ theta[lay.v]
            if own is not None and d.cand is not None:
                z[:-1] += own[lay.size + d.cand]  # the prospect's own bias per node
            return z
        w = theta[lay.style[d.head]].reshape(lay.options[d.head], _P)
        return w @ d.x

    def logprob_and_dlogits(self, d: Decision, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """log pi(chosen) under `theta` at the sampling temperature T, and its gradient
        w.r.t. the logits: (onehot - p) / T."""
        t = self.temperature
        lp = _log_softmax(self.logits(d, theta) / t)
        g = -np.exp(lp)
        g[d.chosen] += 1.0
        return float(lp[d.chosen]), g / t if t != 1.0 else g

    def entropy_and_dlogits(self, d: Decision, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """Entropy H of the decision's choice distribution at temperature T, and its
        gradient w.r.t. the logits: -p * (log p + H) / T."""
        t = self.temperature
        lp = _log_softmax(self.logits(d, theta) / t)
        p = np.exp(lp)
        h = float(-(p * lp).sum())
        return h, -p * (lp + h) / t

    def add_grad(self, d: Decision, g: np.ndarray, scale: float, out: np.ndarray) -> None:
        """out += scale * d(logits)/d(theta)^T g: the chain rule through the linear logits.
        `out` the size of a prospect's own weights (`own_size`) also takes the
        gradient of its per-node biases."""
        lay = self.layout
        assert d.x is not None
        if d.head == "node":
            assert d.psi is not None
            out[lay.w] += d.x.T @ (g[:-1] * scale)
            out[lay.v] += d.psi * (g[-1] * scale)
            if out.size > lay.size and d.cand is not None:
                np.add.at(out, lay.size + d.cand, g[:-1] * scale)
        else:
            out[lay.style[d.head]] += np.outer(g * scale, d.x).ravel()

    # -- sampling ----------------------------------------------------------------
    def choose(self, d: Decision, rng: np.random.Generator, greedy: bool) -> Decision:
        if self._uniform and not greedy:
            # An explorer: every allowed option alike, whatever the parameters. One
            # draw of the generator, as a sampled choice takes.
            assert d.x is not None
            n = d.x.shape[0] + 1 if d.head == "node" else self.layout.options[d.head]
            d.chosen = min(n - 1, int(rng.random() * n))
            d.logprob = -math.log(n)
            return d
        # Choices have a handful of options: plain floats beat NumPy's per-call
        # overhead here, and this runs ~10 times a rollout.
        # A prospect's own weights change the logits of the same inputs: keyed apart.
        key = d.key if d.own is None or d.key is None else (d.own, d.key)
        z = self._logits_memo.get(key) if key is not None else None
        if z is None:
            z = self.logits(d, self.theta).tolist()
            if key is not None:
                if len(self._logits_memo) >= EMAIL_CACHE_SIZE:
                    self._logits_memo.clear()
                self._logits_memo[key] = z
        m = max(z)
        t = self.temperature
        if t != 1.0 and not greedy:
            z = [v / t for v in z]
            m = m / t
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

    def start(
        self,
        env: RolloutEnv,
        rng: np.random.Generator,
        greedy: bool,
        style_rng: np.random.Generator | None = None,
    ) -> EmbeddedSession:
        return EmbeddedSession(self, env, rng, greedy, style_rng)

    def rollout_group(
        self,
        env: RolloutEnv,
        rng: np.random.Generator,
        metas: list[TrajectoryMeta],
        greedy: bool = False,
    ) -> list[Trajectory]:
        """Paired rollouts: members 2k and 2k+1 of a group walk alike (one walk
        generator for the pair) and choose how to write independently. Which facts
        an email uses moves the reward far more than how it is written (relevance
        gates the reward), so with every member walking its own way the style heads
        learn from noise; a pair that differs only in style gives them a clean
        comparison (the trainer credits style decisions against rollouts of the same
        walk). Half as many distinct walks per group is the price.

        The last pairs, `explore_share` of the group (rounded to whole pairs), are
        explorers: they walk and choose a style uniformly among the allowed options
        (broad exploration early in a run, as epsilon-greedy's mixture; the trainer
        decays the share). They are marked `explore` in their metadata.

        Before them, `polish_share` of the group are polishers: each writes the
        prospect's elite walk in a style one choice away from the elite's (see
        `_neighbour`), also marked `explore`; without an elite, or with nothing
        left to try around it, they are sampled like the rest."""
        seeds = rng.integers(0, 2**63 - 1, size=(len(metas) + 1) // 2)
        if self.avoid_repeats and not greedy:
            seen = self.seen_emails.setdefault(env.scenario.id, set())
            if len(seen) >= SEEN_CAP:  # bounded; cleared whole, so resumes clear alike
                seen.clear()
        n_explore = 0 if greedy else min(len(metas), 2 * round(self.explore_share * len(metas) / 2))
        first_explorer = len(metas) - n_explore
        n_polish = 0 if greedy else min(first_explorer, round(self.polish_share * len(metas)))
        first_polisher = first_explorer - n_polish
        tried: set[EmailStyle] = set()  # this group's polishers' styles, none twice
        out = []
        for j, m in enumerate(metas):
            self._script = None
            if first_polisher <= j < first_explorer:
                # Without an elite, or with every neighbour of it judged, a polisher
                # is an on-policy sample like the rest.
                self._script = self._neighbour(env, rng, tried)
            explorer = j >= first_explorer or self._script is not None
            self._uniform = j >= first_explorer
            try:
                t = rollout(
                    self,
                    env,
                    np.random.default_rng(int(seeds[j // 2])),
                    m,
                    greedy=greedy,
                    style_rng=rng,
                )
            finally:
                self._uniform = False
                self._script = None
            if explorer:
                t.metadata = t.metadata.model_copy(update={"explore": True})
            out.append(t)
        return out

    def elite_email(self, scenario_id: str, seed: str) -> tuple[tuple[str, ...], EmailStyle] | None:
        """The walk and style of a prospect's elite, read back from its decisions."""
        ds = self.elite_decisions.get(scenario_id)
        if not ds:
            return None
        walk = [seed]
        style: dict[str, int] = {}
        for d in ds:
            if d.head == "node":
                if d.cand is None:  # an elite from before decisions named their candidates
                    return None
                if d.chosen < len(d.cand):
                    walk.append(self.node_ids[int(d.cand[d.chosen])])
            else:
                style[d.head] = d.chosen
        try:
            return tuple(walk), EmailStyle(**style)
        except (TypeError, ValueError):
            return None

    def _neighbour(
        self, env: RolloutEnv, rng: np.random.Generator, tried: set[EmailStyle]
    ) -> tuple[tuple[str, ...], EmailStyle] | None:
        """A polisher's email: the prospect's elite walk, written in a style one
        choice away from the elite's, one the run has not judged on that walk and
        no other polisher of the group writes. None when every one is judged."""
        elite = self.elite_email(env.scenario.id, env.seed_node)
        if elite is None:
            return None
        walk, style = elite
        seen = self.seen_emails.get(env.scenario.id, set())
        base = style.as_dict()
        options = []
        for head, n in STYLE_HEADS:
            for k in range(n):
                if k != base[head]:
                    st = EmailStyle(**{**base, head: k})
                    if st not in tried and (walk, st) not in seen:
                        options.append(st)
        if not options:
            return None
        pick = options[int(rng.integers(len(options)))]
        tried.add(pick)
        return walk, pick

    # -- a decision kept across iterations (self-imitation's elite) -------------------
    def decision_to_json(self, d: Decision) -> dict[str, Any]:
        """What re-scoring the decision needs, as JSON: floats round-trip exactly, so
        a resumed trainer scores it bit-for-bit as the uninterrupted one did."""
        assert d.x is not None
        out: dict[str, Any] = {"head": d.head, "chosen": d.chosen, "x": d.x.tolist()}
        if d.psi is not None:
            out["psi"] = d.psi.tolist()
        if d.own is not None:
            out["own"] = d.own
        if d.cand is not None:
            out["cand"] = [int(c) for c in d.cand]
        return out

    def decision_from_json(self, obj: dict[str, Any]) -> Decision:
        psi = obj.get("psi")
        return Decision(
            head=str(obj["head"]),
            chosen=int(obj["chosen"]),
            logprob=0.0,
            x=np.asarray(obj["x"], dtype=float),
            psi=None if psi is None else np.asarray(psi, dtype=float),
            own=obj.get("own"),
            cand=None if obj.get("cand") is None else np.asarray(obj["cand"], dtype=np.intp),
        )

    # -- persistence ----------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {
            "policy": self.name,
            "node_features": list(NODE_FEATURES),
            "finish_features": list(FINISH_FEATURES),
            "style_context": list(STYLE_CONTEXT),
            "style_heads": {n: k for n, k in STYLE_HEADS},
            "theta": self.theta.tolist(),
            # Sorted by scenario id: the file is byte-identical whatever the order trained.
            "personal": {sid: self.personal[sid].tolist() for sid in sorted(self.personal)},
            "readable": self.readable(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        state = _with_new_node_features(state, self.layout)
        theta = np.asarray(state["theta"], dtype=float)
        if (
            theta.shape != (self.layout.size,)
            or state.get("node_features") != list(NODE_FEATURES)
            or state.get("style_context") != list(STYLE_CONTEXT)
        ):
            raise ValueError("policy state belongs to a different version of the embedded policy")
        # States written before prospects had their own weights have none.
        personal = {
            str(sid): np.asarray(v, dtype=float) for sid, v in (state.get("personal") or {}).items()
        }
        own = self.own_size
        # States written before the per-node biases: the same weights, biases at zero.
        personal = {
            sid: np.concatenate([v, np.zeros(own - v.size)]) if v.shape == theta.shape else v
            for sid, v in personal.items()
        }
        if any(v.shape != (own,) for v in personal.values()):
            raise ValueError("policy state belongs to a different version of the embedded policy")
        self.personal = personal
        self.theta = theta

    def readable(self) -> dict[str, Any]:
        """The learned weights by name, for people reading iter{k}_policy.json."""
        lay, t = self.layout, self.theta
        return {
            "node_weights": dict(zip(NODE_FEATURES, t[lay.w].round(4).tolist(), strict=True)),
            "finish_weights": dict(zip(FINISH_FEATURES, t[lay.v].round(4).tolist(), strict=True)),
            "style_weights": {
                n: {
                    str(k): dict(zip(STYLE_CONTEXT, row.round(4).tolist(), strict=True))
                    for k, row in enumerate(t[s].reshape(lay.options[n], _P))
                }
                for n, s in lay.style.items()
            },
        }
