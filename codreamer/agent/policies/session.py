"""One rollout of the embedded policy: walk the graph, then choose a style and compose.

Each choice is recorded as a `Decision` holding its inputs, so a trainer can
re-score it under new parameters without replaying the rollout.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from codreamer.agent.policies.base import ToolCall, ToolResult, Turn
from codreamer.agent.policies.features import (
    AHEAD0,
    EMAIL_CACHE_SIZE,
    IS_FEATURE,
    N_REL,
    NODE_FEATURES,
    PROGRESS,
    REACHES,
    STYLE_HEADS,
    Decision,
)
from codreamer.agent.rollout import RolloutEnv
from codreamer.agent.style import EmailStyle
from codreamer.agent.tools import FINALIZE_EMAIL, GET_CONNECTED_NODES, GET_RELEVANT_CONTEXT
from codreamer.graph.schema import is_product_feature

if TYPE_CHECKING:
    from codreamer.agent.policies.embedded import EmbeddedPolicy

# Draws of a style at most, for a sampled email not yet judged in the run.
_STYLE_DRAWS = 8

# Tool-call argument JSON by (tool, node, via): the same few calls recur in
# every rollout, so each is serialised once.
_ARGS_JSON: dict[tuple[Any, ...], str] = {}


class EmbeddedSession:
    """One rollout of the embedded policy: walk, then choose a style and compose."""

    def __init__(
        self,
        policy: EmbeddedPolicy,
        env: RolloutEnv,
        rng: np.random.Generator,
        greedy: bool,
        style_rng: np.random.Generator | None = None,
    ) -> None:
        self.p = policy
        self.env = env
        self.rng = rng  # the walk's choices
        self.style_rng = style_rng or rng  # how to write
        self.greedy = greedy
        self.features = policy.scenario_features(env.scenario, env.sender)
        # A greedy email is written with the shared weights plus this prospect's own
        # ones (none unless self-imitation made some: a prospect the policy never
        # trained on is written for by the shared weights alone). Sampled emails use
        # the shared weights alone: GRPO learns from them what transfers, and drawn
        # from weights sharpened on this prospect's best email they taught the shared
        # weights that email's choices for every reader (an agent's held-out leads,
        # bench_agents.py's setting, 5 seeds: 0.93 of their oracle on average, worst
        # seed 0.84, drawn from both without explorers; 0.98, worst 0.95, drawn from
        # the shared weights alone).
        self.own = env.scenario.id if greedy else None
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
        # Action mask: a step after which no Product Feature is within the hops left
        # cannot complete the argument; while a step that can exists, only those are
        # offered. Without it a policy that learned to value relevance could wander a
        # relevant cluster until the depth ran out (seen on a 60-node graph, one seed
        # in three: a VP's email with no product in it).
        left = self.env.depth - len(self.path)  # hops allowed after this step
        store = self.features.store
        viable = [n for n in cands if (h := store.hops_to_feature(n)) is not None and h <= left]
        cands = viable or cands
        if not cands:
            return self._finalize(decisions=[])
        d = self._node_decision(cur, cands)
        script = None if self.greedy else self.p._script
        if script is not None:
            # A polisher replays the elite's walk: its next node, or FINISH where
            # the elite stopped. Off-policy, like an explorer: its log-probability
            # is not the policy's and takes no part in the update.
            walk = script[0]
            nxt = walk[len(self.path)] if len(self.path) < len(walk) else None
            d.chosen = cands.index(nxt) if nxt in cands else len(cands)
            d.logprob = 0.0
        else:
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
        hops_taken = len(self.path) - 1
        depth = self.env.depth
        key = (id(sf), cur, tuple(cands), hops_taken, depth)
        hit = sf.decisions.get(key)
        if hit is not None:
            cand, x, psi = hit
            return Decision("node", -1, 0.0, key=key, cand=cand, x=x, psi=psi, own=self.own)
        store = sf.store
        left = depth - hops_taken - 1  # hops still allowed after moving to a candidate
        cur_hops = store.hops_to_feature(cur)
        x = np.empty((len(cands), len(NODE_FEATURES)))
        for i, c in enumerate(cands):
            x[i] = sf.static(c)
            h = store.hops_to_feature(c)
            # progress: hops gained toward a Product Feature (+1 good, <= 0 not), in [-1, 1]
            if h is None:
                x[i, PROGRESS] = -1.0
            elif cur_hops is None:
                x[i, PROGRESS] = 1.0
            else:
                x[i, PROGRESS] = max(-1.0, min(1.0, float(cur_hops - h)))
            x[i, REACHES] = 1.0 if h is not None and h <= left else 0.0
            x[i, -1] = x[i, IS_FEATURE] * sf.senior
            x[i, AHEAD0 : AHEAD0 + N_REL] = sf.ahead(c, left)
        psi = np.array(
            [
                1.0,
                1.0 if is_product_feature(cur) else 0.0,
                hops_taken / max(1, depth),
                1.0 if cur_hops is not None and cur_hops <= depth - hops_taken else 0.0,
            ]
        )
        idx = self.p.index
        cand = np.fromiter((idx[c] for c in cands), dtype=np.intp, count=len(cands))
        if len(sf.decisions) >= EMAIL_CACHE_SIZE:
            sf.decisions.clear()
        sf.decisions[key] = (cand, x, psi)
        return Decision("node", -1, 0.0, key=key, cand=cand, x=x, psi=psi, own=self.own)

    def _finalize(self, decisions: list[Decision]) -> Turn:
        hops = len(self.path) - 1
        ctx = self.features.style_context(hops)
        seen = None if self.greedy else self.p.seen_emails.get(self.env.scenario.id)
        walk = tuple(self.path)
        # A polisher's style (its neighbour was not judged on this walk: see
        # EmbeddedPolicy._neighbour).
        forced = None if self.greedy or self.p._script is None else self.p._script[1]
        # A sampled email the run has judged already teaches little and spends a
        # judged email of the run's budget: while the policy's seen set holds it,
        # the style is drawn again (a few times at most; sampling without
        # replacement, as a tabu list does). The walk is never redrawn.
        for _attempt in range(_STYLE_DRAWS):
            choice: dict[str, int] = {}
            styled: list[Decision] = []
            for head, _n in STYLE_HEADS:
                d = Decision(
                    head=head,
                    chosen=-1,
                    logprob=0.0,
                    key=(head, id(self.features), hops),
                    own=self.own,
                )
                d.x = ctx
                if forced is not None:
                    d.chosen, d.logprob = getattr(forced, head), 0.0
                else:
                    self.p.choose(d, self.style_rng, self.greedy)
                choice[head] = d.chosen
                styled.append(d)
            style = EmailStyle(**choice)
            if seen is None or (walk, style) not in seen:
                break
        if seen is not None:
            seen.add((walk, style))
        decisions.extend(styled)
        lp = sum(d.logprob for d in decisions)
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
