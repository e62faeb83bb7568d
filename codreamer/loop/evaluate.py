"""Step 5: evaluate the current policy on held-out scenarios (greedy, judged).

A run given several prospects and none held out is evaluated on its training
prospects instead (`split` "training"): the user then gets each prospect's
email, which is what a multi-prospect run is for."""

from __future__ import annotations

import statistics

import numpy as np
from pydantic import BaseModel, Field

from codreamer.agent.policies.base import Policy
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.errors import CoDreamerError
from codreamer.graph.store import GraphStore
from codreamer.judge.base import GroupJudge
from codreamer.models import Scenario, Sender

# A reward at or above this counts as a pass: an email a person would send as is.
PASS_THRESHOLD = 0.8


class ScenarioResult(BaseModel):
    scenario_id: str
    reward: float
    subject: str
    body: str = ""  # reports written before it was added have none
    citations: list[str]
    criteria: dict[str, float]


class EvalReport(BaseModel):
    split: str = "held_out"  # or "training": the prospects the run trained on
    scenarios: int = 0
    mean_reward: float = 0.0
    pass_rate: float = 0.0
    pass_threshold: float = PASS_THRESHOLD
    criteria_means: dict[str, float] = Field(default_factory=dict)
    results: list[ScenarioResult] = Field(default_factory=list)
    judge_failures: list[str] = Field(default_factory=list)


def evaluate(
    policy: Policy,
    store: GraphStore,
    tools: AgentTools,
    scenarios: list[Scenario],
    judge: GroupJudge,
    depth: int,
    sender: Sender | None = None,
    split: str = "held_out",
) -> EvalReport:
    results: list[ScenarioResult] = []
    failures: list[str] = []
    for s in scenarios:
        meta = TrajectoryMeta(trajectory_id=f"eval-{s.id}", scenario_id=s.id, iteration=-1)
        env = RolloutEnv(store, tools, s, depth, sender or Sender())
        traj = rollout(policy, env, np.random.default_rng(0), meta, greedy=True)
        try:
            j = judge.score_group([traj.final_email], s, env.sender)[0]
        except CoDreamerError as exc:  # an LLM judge failing on one scenario skips it
            failures.append(f"{s.id}: {exc}")
            continue
        results.append(
            ScenarioResult(
                scenario_id=s.id,
                reward=j.total,
                subject=traj.final_email.subject,
                body=traj.final_email.body,
                citations=traj.final_email.citations,
                criteria={k: c.score for k, c in j.criteria.items()},
            )
        )
    if not results:
        return EvalReport(split=split, judge_failures=failures)
    names = sorted({k for r in results for k in r.criteria})
    return EvalReport(
        split=split,
        scenarios=len(results),
        mean_reward=statistics.fmean(r.reward for r in results),
        pass_rate=sum(r.reward >= PASS_THRESHOLD for r in results) / len(results),
        criteria_means={
            n: statistics.fmean(r.criteria.get(n, 0.0) for r in results) for n in names
        },
        results=results,
        judge_failures=failures,
    )
