"""The best email judged in a run, per prospect (DESIGN §2).

Every email the run judged is a candidate: each iteration's sampled rollouts and
its greedy email. Candidates are offered in the order the run judged them
(baseline greedy, then per iteration its rollouts, then its greedy email), and a
candidate at least as good as the best so far replaces it, so ties go to the
later one. An email the judge could not score never wins.

The record is kept in memory while the run goes and rebuilt from the run's own
files on resume (`rebuild`), so a resumed run ends where an uninterrupted one
would, byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from codreamer.agent.trajectory import Trajectory
from codreamer.store.files import read_json
from codreamer.store.paths import RunPaths

# Fields of an email record (iter{k}_email.json, final_email.json) that say what
# was written and how it was judged.
_RECORD = ("iteration", "email", "reward", "judgement", "trajectory_id", "hops", "style")


def _rank(reward: Any) -> float:
    return float("-inf") if reward is None else float(reward)


def rollout_record(t: dict[str, Any]) -> dict[str, Any]:
    """An email record of a sampled rollout, from its JSON form (step2 file row)."""
    meta = t["metadata"]
    return {
        "iteration": meta["iteration"],
        "email": t["final_email"],
        "reward": t["reward"],
        "judgement": t["judgement"],
        "trajectory_id": meta["trajectory_id"],
        "hops": meta.get("hops"),
        "style": meta.get("style"),
        "auto_finalized": meta.get("auto_finalized", False),
        "greedy": False,
    }


def greedy_record(email: dict[str, Any]) -> dict[str, Any]:
    """An email record of a greedy email (iter{k}_email.json), without its metrics."""
    return {
        **{k: email.get(k) for k in _RECORD},
        "auto_finalized": email.get("auto_finalized", False),
        "greedy": True,
    }


@dataclass
class BestEmails:
    """The best judged email so far for each scenario id."""

    by_scenario: dict[str, dict[str, Any]] = field(default_factory=dict)

    def offer(self, scenario_id: str, record: dict[str, Any]) -> bool:
        """Keep `record` if it is at least as good as the best so far; True when it
        is strictly better (the run improved)."""
        best = self.by_scenario.get(scenario_id)
        new, old = _rank(record["reward"]), _rank(best["reward"]) if best else None
        if old is None or new >= old:
            self.by_scenario[scenario_id] = record
        return record["reward"] is not None and (old is None or new > old)

    def offer_groups(self, groups: list[list[Trajectory]]) -> bool:
        """Each judged group's best rollout (the later of equals); True if any improved."""
        improved = False
        for group in groups:
            top: Trajectory | None = None
            for t in group:
                if t.reward is not None and (top is None or t.reward >= (top.reward or 0.0)):
                    top = t
            if top is not None:
                row = {
                    "metadata": top.metadata.model_dump(mode="json"),
                    "final_email": top.final_email.model_dump(mode="json"),
                    "reward": top.reward,
                    "judgement": top.judgement.model_dump(mode="json") if top.judgement else None,
                }
                improved |= self.offer(top.metadata.scenario_id, rollout_record(row))
        return improved

    def best(self, scenario_id: str) -> dict[str, Any] | None:
        return self.by_scenario.get(scenario_id)

    def reward(self, scenario_id: str) -> float | None:
        best = self.by_scenario.get(scenario_id)
        return None if best is None else best["reward"]


def rebuild(paths: RunPaths, primary: str, done: int) -> BestEmails:
    """The best emails of iterations 0..done, from the run's files, in the order the
    run judged them: what the run held in memory when it finished iteration `done`."""
    best = BestEmails()
    best.offer(primary, greedy_record(read_json(paths.email(0))))
    for k in range(1, done + 1):
        text = paths.step2_groups(k).read_text(encoding="utf-8")
        for line in text.splitlines():
            row = json.loads(line)
            top: dict[str, Any] | None = None
            for t in row["trajectories"]:
                if t["reward"] is not None and (top is None or t["reward"] >= top["reward"]):
                    top = t
            if top is not None:
                best.offer(top["metadata"]["scenario_id"], rollout_record(top))
        best.offer(primary, greedy_record(read_json(paths.email(k))))
    return best
