"""The embedded policy: a small stochastic NumPy policy over the graph (DESIGN §3).

Decisions of one rollout:
  * at each node, the next node among the unvisited out-neighbours, or FINISH
    (arriving at a Product Feature node ends the walk: the argument is made);
  * when finishing, the email's style: subject form, opening, call-to-action form.
Node logits are linear in candidate features plus a learned per-node bias; the
FINISH logit is linear in features of the current position; style heads are
free logits. All parameters start at zero (a uniform policy) and are learned
by GRPO (codreamer/train/grpo.py). No GPU, no network, microseconds a choice.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from codreamer.agent.compose import N_CTAS, N_OPENINGS, N_SUBJECTS, EmailStyle, compose_email
from codreamer.agent.policies.base import ToolCall, ToolResult, Turn
from codreamer.agent.rollout import RolloutEnv
from codreamer.agent.tools import FINALIZE_EMAIL, GET_CONNECTED_NODES, GET_RELEVANT_CONTEXT
from codreamer.agent.trajectory import Trajectory
from codreamer.graph.schema import is_product_feature
from codreamer.graph.store import GraphStore
from codreamer.models import FinalEmail, Scenario
from codreamer.train.config import GRPOConfig

NODE_FEATURES = ("score", "relevance", "progress", "is_feature", "reaches_feature", "confidence")
FINISH_FEATURES = ("bias", "at_feature", "hops_fraction", "can_reach_feature")
# The one prior: start out curious. A FINISH logit of -1 makes a new agent
# research a few hops before writing instead of stopping at the seed half the
# time, so a group of rollouts reaches a Product Feature often enough to learn
# from; everything else starts at zero (uniform).
INITIAL_FINISH_BIAS = -1.0
EMAIL_CACHE_SIZE = 50_000  # bound of each memo below; cleared when full
_ARGS_JSON: dict[tuple[Any, ...], str] = {}
STYLE_HEADS = (("subject", N_SUBJECTS), ("opening", N_OPENINGS), ("cta", N_CTAS))

_WORD = re.compile(r"[a-z][a-z0-9+#-]{2,}")
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


class ScenarioFeatures:
    """Per-scenario, per-node feature cache (relevance is scenario-specific)."""

    def __init__(self, store: GraphStore, scenario: Scenario) -> None:
        self.store = store
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
            email = compose_email(self.store, path, self.scenario, style)
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


class EmbeddedPolicy:
    name = "embedded"
    trainable = True

    def __init__(self, store: GraphStore, config: GRPOConfig | None = None) -> None:
        self.store = store
        self.config = config or GRPOConfig()
        self.node_ids = list(store.nodes)
        self.index = {n: i for i, n in enumerate(self.node_ids)}
        self.layout = ParamLayout(len(self.node_ids))
        # Sampling-time logits by decision key; valid while theta is unchanged.
        self._logits_memo: dict[Any, list[float]] = {}
        theta = np.zeros(self.layout.size)
        theta[self.layout.v.start] = INITIAL_FINISH_BIAS
        self.theta = theta
        self.theta_ref = theta.copy()
        from codreamer.train.grpo import AdamState

        self.adam = AdamState.zeros(self.layout.size)
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
    def scenario_features(self, scenario: Scenario) -> ScenarioFeatures:
        key = (scenario.id, scenario.goal, scenario.prospect.model_dump_json())
        sf = self._features.get(key)
        if sf is None:
            sf = self._features[key] = ScenarioFeatures(self.store, scenario)
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

    # -- training and persistence ---------------------------------------------------
    def train_step(self, groups: list[list[Trajectory]]) -> dict[str, float]:
        from codreamer.train.grpo import grpo_update

        return grpo_update(self, groups, self.config)

    def state_dict(self) -> dict[str, Any]:
        return {
            "policy": self.name,
            "node_ids": self.node_ids,
            "node_features": list(NODE_FEATURES),
            "finish_features": list(FINISH_FEATURES),
            "style_heads": {n: k for n, k in STYLE_HEADS},
            "theta": self.theta.tolist(),
            "theta_ref": self.theta_ref.tolist(),
            "adam": self.adam.to_json(),
            "readable": self.readable(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("node_ids") != self.node_ids:
            raise ValueError("policy state belongs to a different graph")
        self.theta = np.asarray(state["theta"], dtype=float)
        self.theta_ref = np.asarray(state["theta_ref"], dtype=float)
        from codreamer.train.grpo import AdamState

        self.adam = AdamState.from_json(state["adam"])

    def readable(self) -> dict[str, Any]:
        """The learned weights by name, for people reading iter{k}_policy.json."""
        lay, t = self.layout, self.theta
        return {
            "node_weights": dict(zip(NODE_FEATURES, t[lay.w].round(4).tolist(), strict=True)),
            "finish_weights": dict(zip(FINISH_FEATURES, t[lay.v].round(4).tolist(), strict=True)),
            "style_logits": {n: t[s].round(4).tolist() for n, s in lay.style.items()},
        }


class EmbeddedSession:
    """One rollout of the embedded policy: walk, then choose a style and compose."""

    def __init__(
        self, policy: EmbeddedPolicy, env: RolloutEnv, rng: np.random.Generator, greedy: bool
    ) -> None:
        self.p = policy
        self.env = env
        self.rng = rng
        self.greedy = greedy
        self.features = policy.scenario_features(env.scenario)
        self.path: list[str] = []
        self.turn = 0

    def _call(self, name: str, **arguments: Any) -> ToolCall:
        key = (name, *arguments.values())
        raw = _ARGS_JSON.get(key)
        if raw is None:
            if len(_ARGS_JSON) >= EMAIL_CACHE_SIZE:
                _ARGS_JSON.clear()
            raw = _ARGS_JSON[key] = json.dumps(arguments, ensure_ascii=False)
        return ToolCall(
            id=f"call_{self.turn}_{name}", name=name, arguments=arguments, raw_arguments=raw
        )

    def _explore(self, node: str, via: str | None) -> Turn:
        self.path.append(node)
        args: dict[str, Any] = {"node_id": node}
        if via is not None:
            args["via"] = via
        calls = [
            self._call(GET_RELEVANT_CONTEXT, **args),
            self._call(GET_CONNECTED_NODES, node_id=node),
        ]
        self.turn += 1
        return Turn(tool_calls=calls)

    def next_turn(self, results: list[ToolResult]) -> Turn:
        if not self.path:
            return self._explore(self.env.seed_node, None)
        cur = self.path[-1]
        if is_product_feature(cur):
            # The argument's destination: arriving at the product, the agent writes.
            return self._finalize(decisions=[])
        neighbours: list[str] = []
        for r in results:
            if r.call.name == GET_CONNECTED_NODES and r.ok:
                neighbours = r.content
        visited = set(self.path)
        cands = [n for n in neighbours if n not in visited]
        if not cands:
            return self._finalize(decisions=[])
        d = self._node_decision(cur, cands)
        self.p.choose(d, self.rng, self.greedy)
        if d.chosen == len(cands):  # FINISH
            t = self._finalize(decisions=[d])
            return t
        t = self._explore(cands[d.chosen], cur)
        t.logprob = d.logprob
        t.decisions = [d]
        return t

    def _node_decision(self, cur: str, cands: list[str]) -> Decision:
        sf = self.features
        scores = self.env.tools.scores
        hops_taken = len(self.path) - 1
        key = (cur, tuple(cands), hops_taken, self.env.depth, scores.version, id(scores))
        hit = sf.decisions.get(key)
        if hit is not None:
            cand, x, psi = hit
            return Decision("node", -1, 0.0, key=key, cand=cand, x=x, psi=psi)
        cur_static = sf.static(cur)
        x = np.empty((len(cands), len(NODE_FEATURES)))
        for i, c in enumerate(cands):
            row = sf.static(c)
            x[i] = row
            x[i, 0] = scores.get(c)
            # progress: hops gained toward a Product Feature (+1 good, <=0 not), in [-1, 1]
            if row[4] and cur_static[4]:
                x[i, 2] = max(-1.0, min(1.0, row[2] - cur_static[2]))
            else:
                x[i, 2] = -1.0 if not row[4] else 1.0
        psi = np.array(
            [
                1.0,
                1.0 if is_product_feature(cur) else 0.0,
                hops_taken / max(1, self.env.depth),
                cur_static[4],
            ]
        )
        idx = self.p.index
        cand = np.fromiter((idx[c] for c in cands), dtype=np.intp, count=len(cands))
        if len(sf.decisions) >= EMAIL_CACHE_SIZE:
            sf.decisions.clear()
        sf.decisions[key] = (cand, x, psi)
        return Decision("node", -1, 0.0, key=key, cand=cand, x=x, psi=psi)

    def _finalize(self, decisions: list[Decision]) -> Turn:
        choice: dict[str, int] = {}
        lp = sum(d.logprob for d in decisions)
        for head, _n in STYLE_HEADS:
            d = Decision(head=head, chosen=-1, logprob=0.0, key=head)
            self.p.choose(d, self.rng, self.greedy)
            choice[head] = d.chosen
            decisions.append(d)
            lp += d.logprob
        style = EmailStyle(subject=choice["subject"], opening=choice["opening"], cta=choice["cta"])
        email = self.features.compose(self.path, style)
        call = ToolCall(
            id=f"call_{self.turn}_{FINALIZE_EMAIL}",
            name=FINALIZE_EMAIL,
            arguments={"subject": email.subject, "body": email.body, "citations": email.citations},
            raw_arguments=self.features.finalize_arguments(self.path, style),
        )
        return Turn(
            tool_calls=[call],
            logprob=lp,
            email=email,
            exploring=False,
            decisions=decisions,
            info={"hops": len(self.path) - 1, "style": choice},
        )

    def force_finalize(self, reason: str) -> Turn:
        return self._finalize(decisions=[])
