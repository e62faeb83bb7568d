"""Writing with an agent, no training (DESIGN §2): one greedy email per lead.

The agent's latest version gives the policy's parameters, its node scores, the judge
(refitted to the team's ratings, when it was), the goal, seed node, depth and sender
of its runs. Every email is judged, keyed (`email_key`) and logged in the agent's
email log, so a rating or an outcome of it can be joined back to it later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.config import Settings
from codreamer.errors import AgentGraphError, AgentNotFoundError
from codreamer.graph.schema import parse_graph
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.judge.base import make_judge
from codreamer.judge.feedback import email_key
from codreamer.judge.rubric.total import FittedTotal
from codreamer.leads import Lead
from codreamer.loop.config import LoopConfig
from codreamer.loop.context import build_policy
from codreamer.models import Judgement, Scenario, Sender, utc_now_iso
from codreamer.store.agents import AgentPaths, log_emails
from codreamer.store.files import read_json

REASONS_SHOWN = 3


def reasons(judgement: Judgement, n: int = REASONS_SHOWN) -> list[str]:
    """The judge's one-line reasons for its weakest weighted criteria, weakest first."""
    weighted = [(c.score, k, c.reason) for k, c in judgement.criteria.items() if c.weight > 0]
    return [f"{k}: {why}" for _, k, why in sorted(weighted)[:n]]


class AgentWriter:
    """Writes with one agent version; build once, write many."""

    def __init__(
        self,
        results_dir: Path,
        name: str,
        settings: Settings,
        *,
        graph: GraphStore | None = None,
        goal: str | None = None,
        sender: Sender | None = None,
    ) -> None:
        self.agent = AgentPaths(results_dir, name)
        k = self.agent.latest()
        if k is None:
            raise AgentNotFoundError(name)
        self.version = k
        v = self.agent.version(k)
        manifest = self.agent.manifest(k)
        self.config = LoopConfig.model_validate(manifest["config"])
        made_on = GraphStore(parse_graph(read_json(v.graph)))
        if graph is not None and set(graph.nodes) != set(made_on.nodes):
            raise AgentGraphError(
                f"agent {name!r} v{k} was made on graph {manifest.get('graph_hash')} "
                f"({len(made_on)} nodes); the graph given is {graph.digest()} "
                f"({len(graph)} nodes) with other node ids: write on the agent's graph "
                "(give none) or train an agent on this one"
            )
        self.store = graph or made_on
        self.policy = build_policy(self.config, self.store, settings)
        self.policy.load_state_dict(read_json(v.policy))
        scores = NodeScores(self.store.nodes, read_json(v.node_scores))
        self.tools = AgentTools(self.store, scores)
        total = FittedTotal.from_dict(read_json(v.judge_total)) if v.judge_total.exists() else None
        self.judge = make_judge(self.config.judge, self.store, settings, total=total)
        primary = self.config.scenario
        self.goal = goal or primary.goal
        self.seed_nodes = list(primary.seed_nodes)
        self.sender = sender or self.config.sender

    def scenario(self, lead: Lead) -> Scenario:
        return Scenario(
            id=f"lead-{lead.row}",
            prospect=lead.prospect,
            goal=self.goal,
            seed_nodes=[s for s in self.seed_nodes if s in self.store] or None,  # type: ignore[arg-type]
        )

    def write_one(self, lead: Lead) -> dict[str, Any]:
        scenario = self.scenario(lead)
        meta = TrajectoryMeta(
            trajectory_id=f"write-{lead.row}",
            scenario_id=scenario.id,
            iteration=0,
            seed=0,
            policy=self.policy.name,
        )
        env = RolloutEnv(self.store, self.tools, scenario, self.config.depth, self.sender)
        traj = rollout(self.policy, env, np.random.default_rng(0), meta, greedy=True)
        email = traj.final_email
        judgement = self.judge.score_group([email], scenario, self.sender)[0]
        return {
            "row": lead.row,
            "lead": lead.columns,
            "email": email.model_dump(),
            "reward": round(judgement.total, 6),
            "reasons": reasons(judgement),
            "email_key": email_key(email),
            "agent": self.agent.name,
            "agent_version": self.version,
            "_scenario": scenario,
        }

    def write(
        self, leads: Iterable[Lead], progress: Callable[[int], None] | None = None
    ) -> list[dict[str, Any]]:
        """One result per lead, in order; every email logged for ratings to find."""
        out: list[dict[str, Any]] = []
        log: list[dict[str, Any]] = []
        now = utc_now_iso()
        sender = self.sender.model_dump(mode="json")
        for i, lead in enumerate(leads, start=1):
            r = self.write_one(lead)
            scenario: Scenario = r.pop("_scenario")
            out.append(r)
            log.append(
                {
                    "email_key": r["email_key"],
                    "email": r["email"],
                    "scenario": scenario.model_dump(mode="json"),
                    "sender": sender,
                    "lead_email": lead.prospect.email,
                    "version": self.version,
                    "at": now,
                }
            )
            if progress is not None:
                progress(i)
        log_emails(self.agent, log)
        return out


def csv_rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Results flattened for a CSV: the input's columns, then the email's."""
    return [
        {
            **r["lead"],
            "email_subject": r["email"]["subject"],
            "email_body": r["email"]["body"],
            "email_citations": r["email"]["citations"],
            "reward": r["reward"],
            "judge_reasons": " | ".join(r["reasons"]),
            "email_key": r["email_key"],
        }
        for r in results
    ]
