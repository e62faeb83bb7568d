"""Where a run that names an agent starts (DESIGN §2), for the API and the CLI alike.

A run given `agent` starts from the agent's latest version. Settings it does not give
(policy, trainer, judge, depth, group size, sender, patience) are the version's; a
different policy is refused (its parameters would mean nothing to another policy).
With no graph given, the run uses the version's graph; with no scenarios given, the
prospects the version was trained on.

A graph is compatible with a version when it has the same node ids: the node scores
and the judge the agent carries are per node. (The embedded policy's parameters are
not: it writes for any graph.) Anything else is refused naming both graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codreamer.errors import AgentGraphError, ConfigError
from codreamer.graph.schema import parse_graph
from codreamer.graph.store import GraphStore
from codreamer.models import Scenario
from codreamer.store.agents import AgentPaths
from codreamer.store.files import read_json

# The settings a continued agent keeps unless the caller gives them.
INHERITED = ("policy", "trainer", "judge", "depth", "group_size", "sender", "patience")
MAX_LISTED = 5


@dataclass
class AgentStart:
    name: str
    version: int | None  # None: a new agent
    manifest: dict[str, Any] | None = None
    graph_json: Any = None

    @property
    def config(self) -> dict[str, Any]:
        return dict((self.manifest or {}).get("config") or {})

    def graph(self) -> GraphStore | None:
        return None if self.graph_json is None else GraphStore(parse_graph(self.graph_json))

    def scenarios(self) -> list[Scenario]:
        """The prospects the version was trained on, then its held-out ones."""
        c = self.config
        train = [Scenario.model_validate(s) for s in c.get("scenarios") or []]
        held = [
            Scenario.model_validate({**s, "held_out": True}) for s in c.get("eval_scenarios") or []
        ]
        return train + held


def agent_start(results_dir: Path, name: str) -> AgentStart:
    agent = AgentPaths(results_dir, name)
    k = agent.latest()
    if k is None:
        return AgentStart(name, None)
    v = agent.version(k)
    return AgentStart(name, k, agent.manifest(k), read_json(v.graph))


def with_agent_settings(given: dict[str, Any], start: AgentStart) -> dict[str, Any]:
    """The caller's settings over the version's (for INHERITED); ConfigError when the
    caller asks for another policy than the agent's."""
    if start.version is None:
        return given
    c = start.config
    out = dict(given)
    if out.get("policy") is not None and c.get("policy") and out["policy"] != c["policy"]:
        raise ConfigError(
            f"policy: agent {start.name!r} is a {c['policy']} policy (v{start.version}); "
            f"it cannot continue as {out['policy']}: drop `policy` or start a new agent"
        )
    for key in INHERITED:
        if out.get(key) is None and c.get(key) is not None:
            out[key] = c[key]
    return out


def check_graph(start: AgentStart, store: GraphStore, where: str) -> None:
    """Refuse a graph whose node ids differ from the version's, naming both graphs."""
    if start.version is None or start.manifest is None:
        return
    made_on = start.graph()
    if made_on is None:
        return
    old, new = set(made_on.nodes), set(store.nodes)
    if old == new:
        return
    missing = sorted(old - new)
    added = sorted(new - old)
    parts = []
    if missing:
        parts.append(f"it lacks {_listed(missing)}")
    if added:
        parts.append(f"it has nodes the agent never saw: {_listed(added)}")
    raise AgentGraphError(
        f"agent {start.name!r} v{start.version} was made on graph "
        f"{start.manifest.get('graph_hash', '?')} ({len(old)} nodes); {where} is graph "
        f"{store.digest()} ({len(new)} nodes), and {'; '.join(parts)}. Continue on the "
        "agent's graph (give no graph) or start a new agent"
    )


def _listed(ids: list[str]) -> str:
    shown = ", ".join(repr(i[:60]) for i in ids[:MAX_LISTED])
    return shown + (f" and {len(ids) - MAX_LISTED} more" if len(ids) > MAX_LISTED else "")


def knobs(start: AgentStart | None) -> dict[str, Any]:
    """LoopConfig's agent fields for a run starting from `start`."""
    if start is None:
        return {}
    return {"agent": start.name, "agent_version": start.version}
