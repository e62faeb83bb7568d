"""What `GET /agents`, `GET /agents/{name}` and `codreamer agents list|show` show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codreamer.errors import AgentNotFoundError
from codreamer.store.agents import AgentPaths, agent_names, lock_holder
from codreamer.store.feedback import feedback_rows

# The manifest's keys a version summary shows (its config is shown by `show` only).
_SUMMARY = ("version", "created_at", "run_id", "parent_version", "final_reward", "graph_hash")


def _version_summary(m: dict[str, Any]) -> dict[str, Any]:
    out = {k: m.get(k) for k in _SUMMARY}
    refit = m.get("judge_refit") or {}
    out["judge_refitted"] = bool(m.get("judge_total"))
    out["judge_agreement"] = (
        {k: refit.get(k) for k in ("spearman_before", "spearman_after", "held_out", "adopted")}
        if "spearman_after" in refit
        else None
    )
    return out


def agent_summary(results_dir: Path, runs_dir: Path, name: str) -> dict[str, Any]:
    agent = AgentPaths(results_dir, name)
    versions = agent.versions()
    latest = agent.manifest(versions[-1]) if versions else {}
    return {
        "name": name,
        "latest_version": versions[-1] if versions else None,
        "versions": len(versions),
        "policy": latest.get("policy"),
        "graph_hash": latest.get("graph_hash"),
        "final_reward": latest.get("final_reward"),
        "updated_at": latest.get("created_at"),
        "runs": len((latest.get("lineage") or {}).get("runs") or []),
        "busy_with": lock_holder(agent, runs_dir),
    }


def _known(results_dir: Path, runs_dir: Path, name: str) -> bool:
    """An agent has a version, or its first run is going on (it is being made)."""
    agent = AgentPaths(results_dir, name)
    return bool(agent.versions()) or lock_holder(agent, runs_dir) is not None


def list_agents(results_dir: Path, runs_dir: Path) -> list[dict[str, Any]]:
    """Every agent with a version or a first run going on; most recently updated first,
    those still being made first of all."""
    out = [
        agent_summary(results_dir, runs_dir, n)
        for n in agent_names(results_dir)
        if _known(results_dir, runs_dir, n)
    ]
    return sorted(out, key=lambda a: a["updated_at"] or "~", reverse=True)


def show_agent(results_dir: Path, runs_dir: Path, name: str) -> dict[str, Any]:
    agent = AgentPaths(results_dir, name)
    versions = agent.versions()
    if not _known(results_dir, runs_dir, name):
        raise AgentNotFoundError(name)
    latest = agent.manifest(versions[-1]) if versions else {}
    rows = feedback_rows(results_dir, name)
    return {
        **agent_summary(results_dir, runs_dir, name),
        "config": latest.get("config"),
        "lineage": latest.get("lineage"),
        "judge_refit": latest.get("judge_refit"),
        "feedback": {
            "events": len(rows),
            "human": sum(1 for r in rows if r.get("type") == "human_preference"),
            "online": sum(1 for r in rows if r.get("type") == "online_outcome"),
        },
        "history": [_version_summary(agent.manifest(k)) for k in reversed(versions)],
    }
