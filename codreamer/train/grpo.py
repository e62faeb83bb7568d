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

`GRPOTrainer` owns the optimiser (Adam) and the reference parameters for the
KL term; the policy only says how likely its choices are under given
parameters and how that likelihood moves (`ScorablePolicy`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from codreamer.train.config import GRPOConfig

if TYPE_CHECKING:
    from codreamer.agent.trajectory import Trajectory


class ScorablePolicy(Protocol):
    """What GRPO needs from a policy: its flat parameters, and for a recorded
    decision, log pi(chosen) with its gradient w.r.t. the decision's logits and
    a way to push that gradient back onto the parameters."""

    name: str
    theta: np.ndarray

    def logprob_and_dlogits(self, d: Any, theta: np.ndarray) -> tuple[float, np.ndarray]: ...

    def add_grad(self, d: Any, g: np.ndarray, scale: float, out: np.ndarray) -> None: ...


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


class GRPOTrainer:
    """The `grpo` trainer: Adam state, reference parameters and the sampling
    temperature, checkpointed. It sets the policy's temperature: the one the
    iteration's rollouts are drawn at, then (after the update) the next one."""

    name = "grpo"

    def __init__(self, policy: Any, config: GRPOConfig | None = None) -> None:
        if not hasattr(policy, "logprob_and_dlogits"):
            raise ValueError(f"the grpo trainer cannot train the {policy.name!r} policy")
        self.config = config or GRPOConfig()
        self.theta_ref = np.array(policy.theta, dtype=float, copy=True)
        self.adam = AdamState.zeros(self.theta_ref.size)
        self.temperature = self.config.temperature
        self._policy = policy
        policy.temperature = self.temperature

    def step(self, policy: Any, judged_groups: list[list[Trajectory]]) -> dict[str, float]:
        # The update scores log-probabilities at the temperature the rollouts used.
        policy.temperature = self.temperature
        stats = grpo_update(policy, judged_groups, self.config, self.adam, self.theta_ref)
        frac = frac_reward_zero_std(judged_groups)
        stats["frac_reward_zero_std"] = frac
        stats["temperature"] = self.temperature
        self.temperature = next_temperature(self.temperature, frac, self.config)
        stats["next_temperature"] = self.temperature
        policy.temperature = self.temperature
        return stats

    def state_dict(self) -> dict[str, Any]:
        return {
            "trainer": self.name,
            "theta_ref": self.theta_ref.tolist(),
            "adam": self.adam.to_json(),
            "temperature": self.temperature,
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


def grpo_update(
    policy: ScorablePolicy,
    groups: list[list[Trajectory]],
    cfg: GRPOConfig,
    adam: AdamState,
    theta_ref: np.ndarray,
) -> dict[str, float]:
    batch: list[tuple[list[Any], list[float], list[float], list[float]]] = []
    skipped = 0
    for group in groups:
        rewards = [t.reward for t in group]
        if any(r is None for r in rewards):
            skipped += 1
            continue
        rs = [float(r) for r in rewards if r is not None]
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
        policy.theta = adam.step(policy.theta, grad, cfg)
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
