"""A run that continues an agent (DESIGN §2): what it starts from, what it records.

It starts from the version named in its config (fixed when the run was created, so a
resumed run starts from the same one): the policy's parameters, the node scores and
the judge's total that version carries. Once at its start (kept in the run directory
for a resume) it refits the judge to the team's ratings when there are enough
(codreamer/loop/team_judge.py). On success it records the next version; whatever
the outcome, it frees the agent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from codreamer.graph.store import GraphStore
from codreamer.judge.feedback import email_key
from codreamer.judge.rubric.total import FittedTotal
from codreamer.loop.config import LoopConfig
from codreamer.models import FinalEmail, utc_now_iso
from codreamer.store.agents import AgentPaths, log_emails, record_version, release, version_made_by
from codreamer.store.feedback import feedback_rows, results_dir_of_run
from codreamer.store.files import atomic_write_json, read_json
from codreamer.store.paths import RunPaths


@dataclass
class AgentState:
    """What a run takes from its agent's version, and the judge it will use."""

    policy: dict[str, Any] | None = None
    node_scores: dict[str, float] | None = None
    total: FittedTotal | None = None
    refit: dict[str, Any] | None = None
    parent: dict[str, Any] | None = None


def agent_of(paths: RunPaths, config: LoopConfig) -> AgentPaths | None:
    if not config.agent:
        return None
    return AgentPaths(results_dir_of_run(paths.dir), config.agent)


def load_start(paths: RunPaths, config: LoopConfig, store: GraphStore) -> AgentState:
    agent = agent_of(paths, config)
    if agent is None:
        return AgentState()
    state = AgentState()
    if config.agent_version is not None:
        v = agent.version(config.agent_version)
        state.parent = agent.manifest(config.agent_version)
        state.policy = read_json(v.policy)
        state.node_scores = read_json(v.node_scores)
        if v.judge_total.exists():
            state.total = FittedTotal.from_dict(read_json(v.judge_total))
    if config.judge == "rubric":
        state.total, state.refit = _refit_once(paths, agent, store, state.total)
    return state


def _refit_once(
    paths: RunPaths, agent: AgentPaths, store: GraphStore, current: FittedTotal | None
) -> tuple[FittedTotal | None, dict[str, Any]]:
    done = paths.dir / "judge_refit.json"
    fitted = paths.dir / "judge_total.json"
    if done.exists():
        report = read_json(done)
        total = FittedTotal.from_dict(read_json(fitted)) if fitted.exists() else current
        return total, report
    # Deferred: only a run refitting the judge to a team's ratings needs the fit.
    from codreamer.loop.team_judge import team_total

    new, report = team_total(results_dir_of_run(paths.dir), agent.name, store, current)
    if new is not None:
        atomic_write_json(fitted, new.as_dict())
    elif current is not None:
        atomic_write_json(fitted, current.as_dict())
    atomic_write_json(done, report)
    return (new or current), report


def record(
    paths: RunPaths,
    config: LoopConfig,
    store: GraphStore,
    *,
    policy: dict[str, Any],
    node_scores: dict[str, float],
    total: FittedTotal | None,
    refit: dict[str, Any] | None,
    final: dict[str, Any],
) -> int | None:
    """Record the next version of the run's agent (once: a resumed run that already
    recorded it gets its number back) and log the run's final emails."""
    agent = agent_of(paths, config)
    if agent is None:
        return None
    done = version_made_by(agent, paths.run_id)
    if done is not None:
        return done
    parent = agent.manifest(config.agent_version) if config.agent_version is not None else {}
    runs = list((parent.get("lineage") or {}).get("runs") or []) + [paths.run_id]
    rows = feedback_rows(results_dir_of_run(paths.dir), agent.name)
    feedback = {
        "file": f"feedback/{agent.name}.jsonl",
        "events": len(rows),
        "human": sum(1 for r in rows if r.get("type") == "human_preference"),
        "online": sum(1 for r in rows if r.get("type") == "online_outcome"),
    }
    manifest = {
        "run_id": paths.run_id,
        "parent_version": config.agent_version,
        "policy": config.policy,
        "trainer": config.trainer,
        "judge": config.judge,
        "graph_hash": store.digest(),
        "graph_nodes": len(store),
        "final_reward": final.get("reward"),
        "config": json.loads(config.model_dump_json()),
        "judge_refit": refit,
        "judge_total": "judge_total.json" if total is not None else None,
        "lineage": {"runs": runs, "feedback": feedback},
    }
    k = record_version(
        agent,
        manifest=manifest,
        policy=policy,
        node_scores=node_scores,
        graph=store.to_json(),
        judge_total=total.as_dict() if total is not None else None,
    )
    log_emails(agent, list(_final_emails(paths, config, final, k)))
    return k


def _final_emails(
    paths: RunPaths, config: LoopConfig, final: dict[str, Any], version: int
) -> list[dict[str, Any]]:
    by_id = {s.id: s for s in config.scenarios}
    picks = [(config.scenario.id, final.get("email"))]
    picks += [(p["scenario_id"], p.get("email")) for p in final.get("per_prospect") or []]
    out, seen = [], set()
    for sid, email in picks:
        scenario = by_id.get(sid, config.scenario)
        if not email or sid in seen:
            continue
        seen.add(sid)
        out.append(
            {
                "email_key": email_key(FinalEmail.model_validate(email)),
                "email": email,
                "scenario": scenario.model_dump(mode="json"),
                "sender": config.sender.model_dump(mode="json"),
                "lead_email": scenario.prospect.email,
                "version": version,
                "run_id": paths.run_id,
                "at": utc_now_iso(),
            }
        )
    return out


def free(paths: RunPaths, config: LoopConfig) -> None:
    agent = agent_of(paths, config)
    if agent is not None:
        release(agent, paths.run_id)
