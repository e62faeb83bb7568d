"""The graded corpus (benchmarks/data/graded/): graphs, prospects, emails, grades.

Shared by bench_judge.py, bench_emails.py and fit_judge.py. Every email comes with
its graph, its scenario and its sender, and the grades of every reader who read it.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from codreamer.graph.store import GraphStore
from codreamer.loaders import load_graph
from codreamer.models import FinalEmail, Scenario, Sender

REPO = Path(__file__).resolve().parents[1]
GRADED = REPO / "benchmarks" / "data" / "graded"


@dataclass
class GradedEmail:
    id: str
    graph: str
    scenario: Scenario
    sender: Sender | None
    email: FinalEmail
    source: str
    kind: str
    grades: dict[str, int] = field(default_factory=dict)  # reader -> 1..5
    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def mean_grade(self) -> float | None:
        return statistics.fmean(self.grades.values()) if self.grades else None


def _path(rel: str) -> Path:
    p = REPO / rel
    if not p.exists() and rel.startswith("../shared/"):
        p = REPO.parent / rel.removeprefix("../")
    return p


@cache
def graph(graph_id: str) -> GraphStore:
    paths = json.loads((GRADED / "graphs.json").read_text())
    return load_graph(_path(paths[graph_id]))


def split() -> dict[str, list[str]]:
    data = json.loads((GRADED / "split.json").read_text())
    return {"tuning": list(data["tuning"]), "heldout": list(data["heldout"])}


def scenarios(graph_id: str) -> dict[str, Scenario]:
    f = GRADED / "prospects" / f"{graph_id}.json"
    if not f.exists():
        return {}
    out = {}
    for raw in json.loads(f.read_text()):
        sc = {k: v for k, v in raw.items() if k != "id"}
        out[raw["id"]] = Scenario.model_validate(sc)
    return out


def emails(graphs: list[str] | None = None, graded_only: bool = False) -> list[GradedEmail]:
    grades: dict[str, dict[str, tuple[int, str]]] = {}
    for f in sorted((GRADED / "grades").glob("*.jsonl")):
        for line in f.read_text().splitlines():
            if line.strip():
                g = json.loads(line)
                # grades/<reader>-<packet>.jsonl: one reader may grade several packets.
                who = f.stem.split("-")[0]
                grades.setdefault(g["email_id"], {})[who] = (int(g["grade"]), g.get("reason", ""))
    out: list[GradedEmail] = []
    scs: dict[str, dict[str, Scenario]] = {}
    for f in sorted((GRADED / "emails").glob("*.jsonl")):
        for line in f.read_text().splitlines():
            if not line.strip():
                continue
            e = json.loads(line)
            if graphs is not None and e["graph"] not in graphs:
                continue
            if e["graph"] not in scs:
                scs[e["graph"]] = scenarios(e["graph"])
            sc = scs[e["graph"]].get(e["scenario"])
            if sc is None:
                continue
            gr = grades.get(e["id"], {})
            if graded_only and not gr:
                continue
            out.append(
                GradedEmail(
                    id=e["id"], graph=e["graph"], scenario=sc,
                    sender=Sender.model_validate(e["sender"]) if e.get("sender") else None,
                    email=FinalEmail.model_validate(e["email"]), source=e.get("source", "human"),
                    kind=e.get("kind", ""), grades={r: g for r, (g, _) in gr.items()},
                    reasons={r: why for r, (_, why) in gr.items()},
                )
            )  # fmt: skip
    return out
