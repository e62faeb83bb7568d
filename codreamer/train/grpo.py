"""GRPO for the embedded policy (DESIGN §3, after DeepSeekMath, outcome supervision).

Per group: advantage A_i = (r_i - mean) / (std + eps), shared by every walk
decision of trajectory i. A style decision (how to write, taken after the walk)
is credited against the rollouts of its group that walked the same facts,
A_i = (r_i - mean over those) / (std + eps), when there are at least two: a
baseline may depend on what was decided before the decision it scores without
biasing that decision's gradient, and this one takes the walk's share out of the
reward, which would otherwise drown the style's (relevance gates the reward, so
walks differ by far more than styles do; the embedded policy pairs rollouts on
one walk so that such peers exist). Objective per decision: the clipped surrogate
min(rho * A, clip(rho, 1 - eps, 1 + eps) * A) minus beta * KL(pi || pi_ref)
(the unbiased k3 estimator) plus entropy_coef * H(pi) (exploration), averaged
over a trajectory's decisions and then over trajectories; maximised by Adam for
`mu` inner epochs. Gradients are exact and analytic: the policy is linear-softmax.

Exploration: probabilities are softmax(logits / T) for sampling and scoring
alike. The trainer owns T: after an iteration whose groups collapsed (no reward
spread in at least `collapse_share` of them, TRL's frac_reward_zero_std) it
raises T for the next one, and lowers it back once groups spread again. A
collapsed group has zero advantages but still takes the entropy bonus, which is
what pulls a sharpened policy back into trying other emails.

Broad early exploration: a share of each group (`explore_share`, decaying by
`explore_decay` each iteration) is drawn uniformly at random by the policy
(`explore` in their metadata). Their emails can become the elite below, but
they take no part in the clipped surrogate nor in its baseline: the ratio
pi/uniform of an off-policy sample is what PPO's clip would only cut.

Self-imitation (Oh et al. 2018, SIL): the trainer keeps, per prospect, the
decisions of the best email judged in the run (its elite). For every prospect
whose elite beats its group's mean reward (SIL's (R - V)+ > 0, with the group
mean as the value estimate V), `sil_steps` Adam steps or more follow the GRPO
epochs on sil_coef x the mean log-probability of the elite's decisions. They
move that prospect's own weights only (`EmbeddedPolicy.personal`), which its
greedy email adds to the shared ones: so a trained prospect's greedy email
converges to the best email the run has found for it, which uniform exploration
may have found first, while the shared weights, which write for prospects the
policy never trained on, learn from GRPO alone (what transfers).

Polishing (local search from the elite, as Go-Explore returns to its best state
before exploring): the trainer shows the policy each prospect's elite, and a
share of each group (`polish_share`) replays the elite's walk with one style
choice changed to one the run has not judged on it. Off-policy like explorers;
their emails may become the elite.

`GRPOTrainer` owns the optimisers (Adam: one for the shared weights, one per
prospect for its own), the reference parameters for the KL term, the
exploration schedule and the elites; the policy only says how likely its
choices are under given parameters and how that likelihood moves
(`ScorablePolicy`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from codreamer.agent.style import EmailStyle
from codreamer.train.config import GRPOConfig

if TYPE_CHECKING:
    from codreamer.agent.trajectory import Trajectory


class ScorablePolicy(Protocol):
    """What GRPO needs from a policy: its flat parameters, and for a recorded
    decision, log pi(chosen) with its gradient w.r.t. the decision's logits and
    a way to push that gradient back onto the parameters."""

    name: str
    theta: np.ndarray
    personal: dict[str, np.ndarray]  # each trained prospect's own weights, by scenario id

    def set_personal(self, scenario_id: str, delta: np.ndarray) -> None: ...

    def logprob_and_dlogits(self, d: Any, theta: np.ndarray) -> tuple[float, np.ndarray]: ...

    def add_grad(self, d: Any, g: np.ndarray, scale: float, out: np.ndarray) -> None: ...

    def decision_to_json(self, d: Any) -> dict[str, Any]: ...

    def decision_from_json(self, obj: dict[str, Any]) -> Any: ...


@dataclass
class AdamState:
    m: np.ndarray
    v: np.ndarray
    t: int = 0

    @classmethod
    def zeros(cls, n: int) -> AdamState:
        return cls(np.zeros(n), np.zeros(n), 0)

    def step(self, theta: np.ndarray, grad: np.ndarray, cfg: GRPOConfig) -> np.ndarray:
        """One Adam *ascent* step on `grad`; returns the new parameters."""
        self.t += 1
        b1, b2 = cfg.adam_beta1, cfg.adam_beta2
        self.m = b1 * self.m + (1 - b1) * grad
        self.v = b2 * self.v + (1 - b2) * grad * grad
        m_hat = self.m / (1 - b1**self.t)
        v_hat = self.v / (1 - b2**self.t)
        return theta + cfg.learning_rate * m_hat / (np.sqrt(v_hat) + cfg.adam_eps)

    def to_json(self) -> dict[str, Any]:
        return {"m": self.m.tolist(), "v": self.v.tolist(), "t": self.t}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> AdamState:
        return cls(np.asarray(d["m"], dtype=float), np.asarray(d["v"], dtype=float), int(d["t"]))


def frac_reward_zero_std(groups: list[list[Any]]) -> float:
    """The share of judged groups whose rewards have no spread (TRL's
    `frac_reward_zero_std`): their advantages are zero, so they teach nothing.
    A group with a reward missing counts by the rewards it has; 0.0 with no groups."""
    if not groups:
        return 0.0
    flat = 0
    for group in groups:
        rs = [float(t.reward) for t in group if t.reward is not None]
        if len(rs) < 2 or max(rs) - min(rs) <= 1e-12:
            flat += 1
    return flat / len(groups)


def next_temperature(current: float, frac_zero_std: float, cfg: GRPOConfig) -> float:
    """Exploration's schedule: up by `temperature_growth` after a collapsed iteration
    (at most `max_temperature`), back down toward `temperature` after one that was not."""
    base = cfg.temperature
    if frac_zero_std >= cfg.collapse_share:
        return max(base, min(cfg.max_temperature, current * cfg.temperature_growth))
    return max(base, current / cfg.temperature_growth)


def group_advantages(rewards: list[float], eps: float) -> np.ndarray | None:
    """(r - mean) / (std + eps); None when every reward is equal (nothing to learn)."""
    r = np.asarray(rewards, dtype=float)
    if r.size < 2 or float(r.max() - r.min()) <= 1e-12:
        return None
    return (r - r.mean()) / (r.std() + eps)


def same_walk_advantages(
    rewards: list[float], walks: list[tuple[str, ...]], group_adv: np.ndarray, eps: float
) -> np.ndarray:
    """Advantages for the style decisions: against the mean of the group's rollouts
    that cited the same walk (scaled by the group's std, as `group_advantages`); a
    walk no other rollout took keeps its group advantage."""
    r = np.asarray(rewards, dtype=float)
    scale = r.std() + eps
    out = np.array(group_adv, dtype=float, copy=True)
    by_walk: dict[tuple[str, ...], list[int]] = {}
    for i, w in enumerate(walks):
        by_walk.setdefault(w, []).append(i)
    for members in by_walk.values():
        if len(members) >= 2:
            base = float(r[members].mean())
            for i in members:
                out[i] = (r[i] - base) / scale
    return out


@dataclass
class Elite:
    """A prospect's best email judged so far: its reward and the decisions that wrote it."""

    reward: float
    trajectory_id: str
    decisions: list[Any]


def offer_elites(elites: dict[str, Elite], groups: list[list[Trajectory]], policy: Any) -> int:
    """Keep each prospect's best judged email (ties: the first kept, so the elite
    only moves for a strictly better email); returns how many prospects' moved.
    Decisions are kept as their JSON round trip, exactly what a resumed trainer
    reads back, so both score the same numbers."""
    moved: set[str] = set()
    for group in groups:
        for t in group:
            if t.reward is None or not t.decisions:
                continue
            sid = t.metadata.scenario_id
            cur = elites.get(sid)
            if cur is None or float(t.reward) > cur.reward:
                ds = [policy.decision_from_json(policy.decision_to_json(d)) for d in t.decisions]
                elites[sid] = Elite(float(t.reward), t.id, _owned(ds, sid))
                moved.add(sid)
    return len(moved)


def _owned(decisions: list[Any], sid: str) -> list[Any]:
    """The elite's decisions scored with its prospect's own weights (an elite read
    from a checkpoint written before prospects had them names none)."""
    for d in decisions:
        if getattr(d, "own", sid) is None:
            d.own = sid
    return decisions


def sil_batch(
    elites: dict[str, Elite], groups: list[list[Trajectory]], cfg: GRPOConfig
) -> list[tuple[str, list[Any]]]:
    """The elites to imitate this iteration, by scenario id: those of prospects whose
    elite beats the mean reward of the prospect's group (SIL's (R - V)+ > 0), in
    group order."""
    if cfg.sil_coef <= 0:
        return []
    out = []
    for group in groups:
        rs = [float(t.reward) for t in group if t.reward is not None]
        if not rs:
            continue
        sid = group[0].metadata.scenario_id
        elite = elites.get(sid)
        if elite is not None and elite.reward > float(np.mean(rs)) + 1e-12:
            out.append((sid, elite.decisions))
    return out


def sil_grad(policy: ScorablePolicy, batch: list[list[Any]], coef: float, out: np.ndarray) -> float:
    """Adds coef x the gradient of the mean (over elites, then over each elite's
    decisions) log-probability of the elites' choices; returns that mean."""
    total = 0.0
    for ds in batch:
        scale = 1.0 / (len(ds) * len(batch))
        for d in ds:
            lp, dlogits = policy.logprob_and_dlogits(d, policy.theta)
            total += lp * scale
            policy.add_grad(d, dlogits, coef * scale, out)
    return total


def all_greedy(policy: Any, batch: list[list[Any]]) -> bool:
    """True when every elite decision's choice is the strict argmax of its logits
    (the greedy policy makes it, whatever the tie-break)."""
    for ds in batch:
        for d in ds:
            z = policy.logits(d, policy.theta)
            best = float(z[d.chosen])
            if any(float(v) >= best for k, v in enumerate(z) if k != d.chosen):
                return False
    return True


class GRPOTrainer:
    """The `grpo` trainer: Adam state, reference parameters, the sampling
    temperature, the exploration share and the elites, checkpointed. It sets the
    policy's temperature and explore share: the ones the iteration's rollouts are
    drawn at, then (after the update) the next ones."""

    name = "grpo"

    def __init__(self, policy: Any, config: GRPOConfig | None = None) -> None:
        if not hasattr(policy, "logprob_and_dlogits"):
            raise ValueError(f"the grpo trainer cannot train the {policy.name!r} policy")
        self.config = config or GRPOConfig()
        self.theta_ref = np.array(policy.theta, dtype=float, copy=True)
        self.adam = AdamState.zeros(self.theta_ref.size)
        self.temperature = self.config.temperature
        self.explore_share = self.config.explore_share
        self.elites: dict[str, Elite] = {}
        # Adam's state for each prospect's own weights (self-imitation's parameters).
        self.own_adam: dict[str, AdamState] = {}
        self._policy = policy
        policy.temperature = self.temperature
        policy.explore_share = self.explore_share
        if hasattr(policy, "seen_emails"):
            policy.avoid_repeats = self.config.avoid_repeats
        if hasattr(policy, "elite_decisions"):
            policy.polish_share = self.config.polish_share

    def step(self, policy: Any, judged_groups: list[list[Trajectory]]) -> dict[str, float]:
        # The update scores log-probabilities at the temperature the rollouts used.
        policy.temperature = self.temperature
        cfg = self.config
        moved = offer_elites(self.elites, judged_groups, policy)
        self._show_elites()
        sil = sil_batch(self.elites, judged_groups, cfg)
        stats = grpo_update(policy, judged_groups, cfg, self.adam, self.theta_ref)
        steps, sil_lp = 0, 0.0
        for sid, ds in sil:
            n, sil_lp = self._imitate(policy, sid, ds)
            steps += n
        stats["sil_steps"] = float(steps)
        if sil:
            stats["sil_logprob"] = sil_lp
        stats["sil_prospects"] = float(len(sil))
        stats["elites_moved"] = float(moved)
        stats["explore_share"] = self.explore_share
        frac = frac_reward_zero_std(judged_groups)
        stats["frac_reward_zero_std"] = frac
        stats["temperature"] = self.temperature
        self.temperature = next_temperature(self.temperature, frac, cfg)
        stats["next_temperature"] = self.temperature
        policy.temperature = self.temperature
        self.explore_share = self.explore_share * cfg.explore_decay
        policy.explore_share = self.explore_share
        return stats

    def _imitate(self, policy: Any, sid: str, ds: list[Any]) -> tuple[int, float]:
        """Self-imitation of one prospect's elite, on that prospect's own weights
        (policy.personal[sid]) alone: `sil_steps` Adam steps, then on (up to 4x as
        many) while one of its choices is not yet the strict argmax. A policy
        sharpened on an older elite needs more steps to move, and stopping half way
        leaves a greedy email made of both (seen on the sample graph: 0.52 of the
        oracle after a late new best). Each prospect has its own weights, so every
        elite can become its prospect's greedy email without pulling the shared
        weights toward it: when self-imitation moved the shared weights, what four
        trained prospects' best emails needed over-fitted them (an agent's
        held-out leads, bench_agents.py's setting, 5 seeds, explorers off: 0.94
        -> 0.87 of their oracle). Returns the steps taken and the last mean
        log-probability."""
        cfg = self.config
        size = getattr(policy, "own_size", policy.theta.size)
        adam = self.own_adam.setdefault(sid, AdamState.zeros(size))
        own = policy.personal.get(sid)
        own = np.zeros(size) if own is None else own
        steps, lp = 0, 0.0
        while steps < 4 * cfg.sil_steps:
            if steps >= cfg.sil_steps and all_greedy(policy, [ds]):
                break
            grad = np.zeros(size)
            lp = sil_grad(policy, [ds], cfg.sil_coef, grad)
            own = adam.step(own, grad, cfg)
            policy.set_personal(sid, own)
            steps += 1
        return steps, lp

    def offer(self, trajectories: list[Trajectory]) -> None:
        """Judged emails from outside the groups (the loop's greedy emails) that may
        be a prospect's best: a run's first greedy email is sometimes better than
        anything it samples later, and the policy should not learn its way off it."""
        offer_elites(self.elites, [trajectories], self._policy)
        self._show_elites()

    def _show_elites(self) -> None:
        """Lets the policy's polishers start from each prospect's elite."""
        if hasattr(self._policy, "elite_decisions"):
            self._policy.elite_decisions = {sid: e.decisions for sid, e in self.elites.items()}

    def state_dict(self) -> dict[str, Any]:
        return {
            "trainer": self.name,
            "theta_ref": self.theta_ref.tolist(),
            "adam": self.adam.to_json(),
            "temperature": self.temperature,
            "explore_share": self.explore_share,
            "own_adam": {sid: self.own_adam[sid].to_json() for sid in sorted(self.own_adam)},
            "elites": {
                sid: {
                    "reward": e.reward,
                    "trajectory_id": e.trajectory_id,
                    "decisions": [self._policy.decision_to_json(d) for d in e.decisions],
                }
                for sid, e in self.elites.items()
            },
            # Sorted: a set's order follows the process's string hashing.
            "seen_emails": {
                sid: sorted([list(w), list(st.as_dict().values())] for w, st in seen)
                for sid, seen in sorted(getattr(self._policy, "seen_emails", {}).items())
            },
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        ref = np.asarray(state["theta_ref"], dtype=float)
        if ref.shape != self.theta_ref.shape:
            raise ValueError("trainer state belongs to a different policy")
        self.theta_ref = ref
        self.adam = AdamState.from_json(state["adam"])
        # Checkpoints written before exploration had no temperature: the base one.
        self.temperature = float(state.get("temperature", self.config.temperature))
        self._policy.temperature = self.temperature
        # ... nor exploration's share nor elites: none then, and no self-imitation.
        self.explore_share = float(state.get("explore_share", 0.0))
        self._policy.explore_share = self.explore_share
        self.elites = {
            sid: Elite(
                float(e["reward"]),
                str(e["trajectory_id"]),
                _owned([self._policy.decision_from_json(d) for d in e["decisions"]], sid),
            )
            for sid, e in (state.get("elites") or {}).items()
        }
        self.own_adam = {
            sid: AdamState.from_json(a) for sid, a in (state.get("own_adam") or {}).items()
        }
        self._show_elites()
        if hasattr(self._policy, "seen_emails"):
            self._policy.seen_emails = {
                sid: {(tuple(w), EmailStyle(*st)) for w, st in rows}
                for sid, rows in (state.get("seen_emails") or {}).items()
            }


def grpo_update(
    policy: ScorablePolicy,
    groups: list[list[Trajectory]],
    cfg: GRPOConfig,
    adam: AdamState,
    theta_ref: np.ndarray,
) -> dict[str, float]:
    """GRPO's epochs over the judged groups: they move the shared weights only."""
    batch: list[tuple[list[Any], list[float], list[float], list[float]]] = []
    skipped = 0
    for group in groups:
        rewards = [t.reward for t in group]
        if any(r is None for r in rewards):
            skipped += 1
            continue
        # Explorers' choices were uniform, not the policy's: off-policy, so they take
        # no part in the surrogate, nor in its baseline (their rewards, mostly below
        # the policy's, would make nearly every on-policy email look good: the
        # shared weights then reinforce whatever they sampled and transfer worse).
        # They may still be the elite.
        group = [t for t in group if not t.metadata.explore]
        rs = [float(t.reward) for t in group if t.reward is not None]
        adv = group_advantages(rs, cfg.advantage_eps)
        if adv is None:
            skipped += 1
            if cfg.entropy_coef <= 0:
                continue
            # Nothing to learn from the rewards, but the entropy bonus still acts:
            # that is what pulls a collapsed policy back into exploring.
            adv = style_adv = np.zeros(len(group))
        else:
            walks = [tuple(t.final_email.citations) for t in group]
            style_adv = same_walk_advantages(rs, walks, adv, cfg.advantage_eps)
        for traj, a, a_style in zip(group, adv, style_adv, strict=True):
            ds = traj.decisions
            if not ds:
                continue
            old = [d.logprob for d in ds]
            ref = [policy.logprob_and_dlogits(d, theta_ref)[0] for d in ds] if cfg.beta > 0 else old
            # Walk decisions ("node") take the group advantage; style heads, the walk's.
            advs = [float(a) if d.head == "node" else float(a_style) for d in ds]
            batch.append((ds, advs, old, ref))
    stats: dict[str, float] = {
        "groups": float(len(groups)),
        "skipped_groups": float(skipped),
        "trajectories": float(len(batch)),
        "updates": 0.0,
    }
    if not batch:
        return stats

    n = len(batch)
    lo, hi = 1.0 - cfg.epsilon, 1.0 + cfg.epsilon
    ent_coef = cfg.entropy_coef
    entropy_of = getattr(policy, "entropy_and_dlogits", None) if ent_coef > 0 else None
    objective = kl_mean = clip_frac = entropy_mean = 0.0
    # Parameters only a prospect's own weights use (the embedded policy's layout).
    own_only = getattr(getattr(policy, "layout", None), "own_only", None)
    monotone = getattr(getattr(policy, "layout", None), "monotone", None)
    for _epoch in range(cfg.mu):
        grad = np.zeros_like(policy.theta)
        objective = kl_sum = ent_sum = 0.0
        clipped = total = 0
        entropies: dict[Any, list[Any]] = {}
        # A group's rollouts repeat the same decisions (same inputs, same choice) many
        # times: each is scored once per epoch and its gradient pushed back once, with
        # the coefficients of all its occurrences summed. Exact up to float rounding.
        scored: dict[Any, tuple[float, np.ndarray]] = {}
        pending: dict[Any, list[Any]] = {}
        for decisions, advs, old, ref in batch:
            scale = 1.0 / (len(decisions) * n)
            for d, a, lp_old, lp_ref in zip(decisions, advs, old, ref, strict=True):
                same = (d.key, d.chosen) if getattr(d, "key", None) is not None else None
                hit = scored.get(same) if same is not None else None
                if hit is None:
                    hit = policy.logprob_and_dlogits(d, policy.theta)
                    if same is not None:
                        scored[same] = hit
                lp, dlogits = hit
                ratio = math.exp(lp - lp_old)
                unclipped = ratio * a
                clipped_obj = min(max(ratio, lo), hi) * a
                # The min picks the clipped branch only when it is strictly smaller;
                # there the objective is flat in theta and contributes no gradient.
                if clipped_obj < unclipped:
                    obj, dobj = clipped_obj, 0.0
                    clipped += 1
                else:
                    obj, dobj = unclipped, unclipped
                total += 1
                dkl = 0.0
                if cfg.beta > 0:
                    x = lp_ref - lp
                    kl = math.exp(x) - x - 1.0
                    kl_sum += kl * scale
                    dkl = 1.0 - math.exp(x)
                    obj -= cfg.beta * kl
                if entropy_of is not None:
                    # Like the surrogate's: each distinct decision scored once an epoch,
                    # its gradient pushed back once with its occurrences' weights summed.
                    ent = entropies.get(same) if same is not None else None
                    if ent is None:
                        h, dh = entropy_of(d, policy.theta)
                        if same is None:
                            policy.add_grad(d, dh, ent_coef * scale, grad)
                        else:
                            ent = entropies[same] = [d, dh, ent_coef * scale, h]
                    else:
                        ent[2] += ent_coef * scale
                    h = ent[3] if ent is not None else h
                    ent_sum += h * scale
                    obj += ent_coef * h
                objective += obj * scale
                coef = (dobj - cfg.beta * dkl) * scale
                if coef == 0.0:
                    continue
                if same is None:
                    policy.add_grad(d, dlogits, coef, grad)
                elif (acc := pending.get(same)) is None:
                    pending[same] = [d, dlogits, coef]
                else:
                    acc[2] += coef
        for d, dlogits, coef in pending.values():
            policy.add_grad(d, dlogits, coef, grad)
        for d, dh, coef, _h in entropies.values():
            policy.add_grad(d, dh, coef, grad)
        if own_only is not None:
            grad[own_only] = 0.0  # zero gradient: Adam leaves them where they are (0)
        theta = adam.step(policy.theta, grad, cfg)
        if monotone is not None and monotone.size:
            # Projected ascent: the weights the policy keeps monotone stay >= 0.
            theta[monotone] = np.maximum(theta[monotone], 0.0)
        policy.theta = theta
        kl_mean = kl_sum
        entropy_mean = ent_sum
        clip_frac = clipped / max(1, total)
    stats.update(
        {
            "updates": float(cfg.mu),
            "objective": objective,
            "kl": kl_mean,
            "entropy": entropy_mean,
            "clip_fraction": clip_frac,
        }
    )
    return stats
