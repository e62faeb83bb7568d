"""What the writer's emails read like, over the graded corpus' graphs and prospects.

uv run python benchmarks/bench_emails.py [--data benchmarks/data/graded] [--samples 2]

For every graph in <data>/graphs.json that has prospects (<data>/prospects/<graph>.json,
else benchmarks/prospects/<graph>.json, else data/scenarios.json for the sample
graph), each prospect gets the untrained embedded policy's greedy email (what the
system writes by default) and `--samples` sampled ones (other walks and styles).
Reported, as JSON:

* phrases: for each 4-word phrase outside the greeting and the sign-off, the share
  of emails containing it (max and top 10); `template_phrases` leaves out phrases
  found in the graph's text or the scenario (a goal shared by many prospects), so
  what remains is the writer's own wording;
* copied: the share of each body (greeting and signature excluded) copied verbatim
  from the graph's node text or rationales, as spans of 8 or more words;
* broken sentences, by the writer's final-check detector and by the judge's grammar
  criterion (emails it finds a broken sentence in, with its reason);
* length in words, and the rubric judge's score.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from _common import REPO, emit

from codreamer.agent.policies.embedded import EmbeddedPolicy
from codreamer.agent.rollout import RolloutEnv, rollout
from codreamer.agent.tools import AgentTools
from codreamer.agent.trajectory import TrajectoryMeta
from codreamer.agent.writer.check import broken_sentences
from codreamer.agent.writer.realise import Vocabulary
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.judge.rubric import RubricJudge
from codreamer.loaders import load_scenarios
from codreamer.models import FinalEmail, Scenario, Sender

_TOKEN = re.compile(r"[a-z0-9][a-z0-9'’-]*")
SPAN = 8
PHRASE = 4


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def middle(body: str) -> str:
    """The body without its greeting (first paragraph) and sign-off (last paragraph)."""
    paras = [p for p in body.strip().split("\n\n") if p.strip()]
    return "\n\n".join(paras[1:-1]) if len(paras) >= 3 else body


def ngrams(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def copied_share(words: list[str], source: set[tuple[str, ...]]) -> float:
    covered = [False] * len(words)
    for i in range(len(words) - SPAN + 1):
        if tuple(words[i : i + SPAN]) in source:
            for j in range(i, i + SPAN):
                covered[j] = True
    return sum(covered) / len(words) if words else 0.0


def graph_texts(store: GraphStore) -> list[str]:
    out = []
    for nid, node in store.nodes.items():
        out.append(node.content)
        out.extend(nb.rationale for nb in store.out_neighbours(nid))
    return out


def prospects_for(data: Path, gid: str) -> list[Scenario]:
    for p in (
        data / "prospects" / f"{gid}.json",
        REPO / "benchmarks" / "prospects" / f"{gid}.json",
    ):
        if p.exists():
            return load_scenarios(p)
    if gid == "sample":
        return load_scenarios(REPO / "data" / "scenarios.json")
    return []


def emails_for(
    store: GraphStore, scenarios: list[Scenario], samples: int, sender: Sender
) -> list[tuple[Scenario, FinalEmail, str]]:
    policy = EmbeddedPolicy(store)
    tools = AgentTools(store, NodeScores(store.nodes))
    out = []
    for sc in scenarios:
        seed = int.from_bytes(hashlib.blake2b(sc.id.encode(), digest_size=4).digest(), "big")
        rng = np.random.default_rng(seed)
        env = RolloutEnv(store, tools, sc, 5, sender=sender)
        meta = TrajectoryMeta(trajectory_id="bench", scenario_id=sc.id, iteration=0)
        for k in range(1 + samples):
            t = rollout(policy, env, rng, meta, greedy=k == 0)
            if t.final_email is not None:
                out.append((sc, t.final_email, "greedy" if k == 0 else "sampled"))
    return out


def _judged(judge: RubricJudge, email: Any, sc: Any) -> dict[str, Any]:
    j = judge.judge(email, sc)
    g = j.criteria["grammar"]
    return {"score": j.total, "grammar": g.score, "grammar_why": g.reason}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=REPO / "benchmarks" / "data" / "graded")
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--dump", type=Path, help="write every email here as JSONL")
    args = ap.parse_args()
    data: Path = args.data
    root = data.resolve().parents[2]  # graphs.json paths are relative to the repository
    graphs: dict[str, str] = json.loads((data / "graphs.json").read_text())
    sender = Sender(name="Sam Carter", title="Account Executive")
    started = time.perf_counter()

    rows: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    for gid, rel in graphs.items():
        path = (root / rel).resolve()
        if not path.exists():
            skipped[gid] = "graph file missing"
            continue
        scenarios = prospects_for(data, gid)
        if not scenarios:
            skipped[gid] = "no prospects"
            continue
        store = GraphStore.from_json(json.loads(path.read_text()))
        texts = graph_texts(store)
        source = set().union(*(ngrams(tokens(t), SPAN) for t in texts))
        graph_phrases = set().union(*(ngrams(tokens(t), PHRASE) for t in texts))
        judge = RubricJudge(store)
        for sc, email, kind in emails_for(store, scenarios, args.samples, sender):
            p = sc.prospect
            vocab = Vocabulary(texts, [p.name, p.company or "", sender.name])
            mid = tokens(middle(email.body))
            scen = " ".join([sc.goal, p.notes or "", p.name, p.company or "", p.title or ""])
            own = ngrams(mid, PHRASE) - graph_phrases - ngrams(tokens(scen), PHRASE)
            rows.append(
                {
                    "graph": gid,
                    "scenario": sc.id,
                    "kind": kind,
                    "email": email.model_dump(),
                    "phrases": ngrams(mid, PHRASE),
                    "own_phrases": own,
                    "copied": copied_share(mid, source),
                    "broken": broken_sentences(email.body, vocab.proper),
                    "words": len(email.body.split()),
                    **_judged(judge, email, sc),
                }
            )
    n = len(rows)

    def top(key: str) -> tuple[float, list[dict[str, Any]]]:
        c: Counter[tuple[str, ...]] = Counter()
        for r in rows:
            c.update(r[key])
        best = c.most_common(10)
        return (
            round(best[0][1] / n, 3) if best else 0.0,
            [{"phrase": " ".join(k), "share": round(v / n, 3)} for k, v in best],
        )

    max_all, top_all = top("phrases")
    max_own, top_own = top("own_phrases")
    copied = [r["copied"] for r in rows]
    broken = [(r["graph"], r["scenario"], s, why) for r in rows for s, why in r["broken"]]
    greedy = [r for r in rows if r["kind"] == "greedy"]
    if args.dump:
        with args.dump.open("w") as fh:
            for r in rows:
                keep = {k: r[k] for k in ("graph", "scenario", "kind", "email", "copied", "score")}
                fh.write(json.dumps(keep) + "\n")
    emit(
        {
            "benchmark": "emails",
            "graphs": sorted({r["graph"] for r in rows}),
            "skipped": skipped,
            "emails": n,
            "greedy_emails": len(greedy),
            "phrases_4w": {"max_share": max_all, "top10": top_all},
            "template_phrases_4w": {"max_share": max_own, "top10": top_own},
            "copied_verbatim": {
                "mean": round(statistics.mean(copied), 3) if copied else 0.0,
                "max": round(max(copied), 3) if copied else 0.0,
                "share_over_0.30": round(sum(c > 0.30 for c in copied) / n, 3) if n else 0.0,
            },
            "broken_sentences": len(broken),
            "judge_grammar_broken": sum(1 for r in rows if r["grammar"] < 1.0),
            "judge_grammar_examples": [r["grammar_why"] for r in rows if r["grammar"] < 1.0][:10],
            "broken_examples": [
                {"graph": g, "scenario": s, "sentence": t, "why": w} for g, s, t, w in broken[:10]
            ],
            "words": {
                "mean": round(statistics.mean(r["words"] for r in rows), 1) if rows else 0,
                "min": min((r["words"] for r in rows), default=0),
                "max": max((r["words"] for r in rows), default=0),
            },
            "judge_score": {
                "mean": round(statistics.mean(r["score"] for r in rows), 3) if rows else 0.0,
                "greedy_mean": round(statistics.mean(r["score"] for r in greedy), 3)
                if greedy
                else 0.0,
            },
            "targets": {"phrase_max": 0.15, "copied_max": 0.30, "broken": 0},
            "seconds": round(time.perf_counter() - started, 2),
        }
    )


if __name__ == "__main__":
    main()
