"""Calibration of the rubric judge: does it rank emails the way a sales reader would?

Prints one JSON object. On the calibration set (benchmarks/data/calibration/
calibration.jsonl, tuned on) and the held-out set (heldout.jsonl, written before
the judge and never tuned on), each labelled good/bad with a reason; and on the
blind set (blind.jsonl: 24 emails to the sample prospects, written by a helper who
never saw the judge's code or the other sets; one bug it exposed was fixed, an ask
after a linking word, "And could you…?", went uncounted):

- roc_auc: probability that a good email outscores a bad one
- median_good, max_adversarial (and which), adversarial_below_median_good
- prospect_spread: the largest change of one email's score across the prospects
  of its graph (the reward must depend on who reads it)
- reversal_max_delta: the largest change when the citation list is reversed
- emails_per_s: judged afresh (a new judge, no memo) on one core

Acceptance (issue 9): AUC >= 0.95, every adversarial below the median good,
median good >= 0.75, reversal <= 0.02, >= 1,000 emails/s.

    uv run python benchmarks/bench_judge.py [--show calibration|heldout]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from codreamer.graph.store import GraphStore  # noqa: E402
from codreamer.judge.rubric import RubricJudge  # noqa: E402
from codreamer.loaders import load_graph  # noqa: E402
from codreamer.models import FinalEmail, Scenario  # noqa: E402

CAL = REPO / "benchmarks" / "data" / "calibration"


def shared_kg() -> Path:
    for p in (REPO.parent / "shared" / "kg", REPO.parents[1] / "shared" / "kg"):
        if p.is_dir():
            return p
    raise SystemExit("reference graphs not found at ../shared/kg")


def load_set(name: str) -> list[dict]:
    return [json.loads(line) for line in (CAL / name).read_text().splitlines() if line.strip()]


def graphs() -> dict[str, GraphStore]:
    kg = shared_kg()
    return {
        "data/graph.json": load_graph(REPO / "data" / "graph.json"),
        "kg/synthetic-data-16.json": load_graph(kg / "synthetic-data-16.json"),
        "kg/weave-feedback-5.json": load_graph(kg / "weave-feedback-5.json"),
    }


def scenarios() -> dict[str, Scenario]:
    data = json.loads((CAL / "scenarios.json").read_text())
    return {s["id"]: Scenario.model_validate(s) for s in data}


def sample_scenarios() -> dict[str, Scenario]:
    """The blind set's prospects: the sample ones (data/scenarios.json), as "sample:<id>"
    (some share an id with a calibration prospect whose notes differ)."""
    data = json.loads((REPO / "data" / "scenarios.json").read_text())
    return {f"sample:{s['id']}": Scenario.model_validate(s) for s in data}


def blind(rows: list[dict], judges: dict[str, RubricJudge], sc: dict[str, Scenario]) -> dict:
    """The blind set: 24 emails to the sample prospects written by someone who never saw
    the judge's code or the other sets (10 good; 6 polished emails about the wrong
    problem for their reader; 8 other bad ones). Not tuned on; one bug it exposed
    was fixed (an ask after a linking word went uncounted)."""
    scored = [
        (r, judges[r["graph"]].judge(FinalEmail.model_validate(r["email"]), sc[r["scenario"]]))
        for r in rows
    ]
    good = [j.total for r, j in scored if r["label"] == "good"]
    bad = [(j.total, r["id"]) for r, j in scored if r["label"] == "bad"]
    wrong = [j.total for r, j in scored if r["kind"] == "wrong-problem"]
    return {
        "emails": len(rows),
        "roc_auc": round(auc(good, [b for b, _ in bad]), 4),
        "median_good": round(statistics.median(good), 4),
        "min_good": round(min(good), 4),
        "max_bad": round(max(bad)[0], 4),
        "max_bad_id": max(bad)[1],
        "wrong_problem_mean": round(statistics.fmean(wrong), 4),
        "wrong_problem_max": round(max(wrong), 4),
    }


def auc(good: list[float], bad: list[float]) -> float:
    wins = sum((g > b) + 0.5 * (g == b) for g in good for b in bad)
    return wins / (len(good) * len(bad)) if good and bad else float("nan")


def evaluate(rows: list[dict], judges: dict[str, RubricJudge], sc: dict[str, Scenario]) -> dict:
    scored = []
    for r in rows:
        email = FinalEmail.model_validate(r["email"])
        j = judges[r["graph"]].judge(email, sc[r["scenario"]])
        scored.append((r, j))
    good = [j.total for r, j in scored if r["label"] == "good"]
    bad = [j.total for r, j in scored if r["label"] == "bad"]
    adv = [(j.total, r["id"]) for r, j in scored if r["kind"] == "adversarial"]
    med = statistics.median(good) if good else 0.0
    worst_adv = max(adv) if adv else (0.0, "")
    above = [i for s, i in adv if s >= med]
    return {
        "emails": len(rows),
        "good": len(good),
        "bad": len(bad),
        "adversarial": len(adv),
        "roc_auc": round(auc(good, bad), 4),
        "median_good": round(med, 4),
        "min_good": round(min(good), 4) if good else None,
        "max_bad": round(max(bad), 4) if bad else None,
        "max_adversarial": round(worst_adv[0], 4),
        "max_adversarial_id": worst_adv[1],
        "adversarial_below_median_good": not above,
        "adversarial_at_or_above_median_good": above,
        "_scored": scored,
    }


def prospect_spread(
    rows: list[dict], judges: dict[str, RubricJudge], sc: dict[str, Scenario]
) -> dict:
    """Each good email judged for every prospect of the set: how far does its score move?"""
    spreads = []
    for r in rows:
        if r["label"] != "good":
            continue
        email = FinalEmail.model_validate(r["email"])
        totals = [judges[r["graph"]].judge(email, s).total for s in sc.values()]
        spreads.append((max(totals) - min(totals), r["id"]))
    spreads.sort(reverse=True)
    return {
        "prospect_spread_max": round(spreads[0][0], 4),
        "prospect_spread_max_id": spreads[0][1],
        "prospect_spread_median": round(statistics.median(s for s, _ in spreads), 4),
        "emails_identical_across_prospects": sum(1 for s, _ in spreads if s == 0.0),
    }


def reversal(rows: list[dict], judges: dict[str, RubricJudge], sc: dict[str, Scenario]) -> dict:
    worst = (0.0, "")
    for r in rows:
        email = FinalEmail.model_validate(r["email"])
        rev = email.model_copy(update={"citations": list(reversed(email.citations))})
        judge, s = judges[r["graph"]], sc[r["scenario"]]
        d = abs(judge.judge(email, s).total - judge.judge(rev, s).total)
        worst = max(worst, (d, r["id"]))
    return {"reversal_max_delta": round(worst[0], 4), "reversal_max_id": worst[1]}


def throughput(
    rows: list[dict], stores: dict[str, GraphStore], sc: dict[str, Scenario]
) -> dict[str, float]:
    """Emails judged per second by fresh judges (one per graph; no memo of judgements,
    the per-graph index built once as in a run), pinned to one core, best of three:
    by the wall clock, and by this process's CPU time (what the rate would be on an
    idle core; the machine is shared, so both are printed with the load average)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    items = [(r["graph"], FinalEmail.model_validate(r["email"]), sc[r["scenario"]]) for r in rows]
    best_wall = best_cpu = 0.0
    for _ in range(3):
        judges = {k: RubricJudge(v) for k, v in stores.items()}
        for k in judges:
            judges[k].judge(items[0][1], items[0][2])  # builds the graph index
        n = 0
        w0, c0 = time.perf_counter(), time.process_time()
        while time.perf_counter() - w0 < 1.5:
            for g, e, s in items:
                judges[g].judge(e, s)
            n += len(items)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        best_wall = max(best_wall, n / wall)
        best_cpu = max(best_cpu, n / cpu) if cpu > 0 else best_cpu
    return {
        "emails_per_s_one_core_afresh": round(best_wall),
        "emails_per_s_one_core_afresh_cpu_time": round(best_cpu),
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }


def show(result: dict) -> None:
    for r, j in sorted(result["_scored"], key=lambda x: -x[1].total):
        weak = "; ".join(
            f"{k} {c.score:.2f}: {c.reason}" for k, c in j.criteria.items() if c.score < 0.85
        )
        print(f"{j.total:.3f} {r['label']:4} {r['kind']:11} {r['id']:28} | {weak}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--show", choices=["calibration", "heldout"], help="print every score (stderr)")
    args = ap.parse_args()
    stores = graphs()
    judges = {k: RubricJudge(v) for k, v in stores.items()}
    sc = scenarios()
    cal_rows, held_rows = load_set("calibration.jsonl"), load_set("heldout.jsonl")
    cal = evaluate(cal_rows, judges, sc)
    held = evaluate(held_rows, judges, sc)
    if args.show:
        show(cal if args.show == "calibration" else held)
    every = cal_rows + held_rows
    out = {
        "calibration": {k: v for k, v in cal.items() if not k.startswith("_")},
        "heldout": {k: v for k, v in held.items() if not k.startswith("_")},
        "blind": blind(load_set("blind.jsonl"), judges, sample_scenarios()),
        **prospect_spread(every, judges, sc),
        **reversal(every, judges, sc),
        **throughput(every, stores, sc),
        "targets": {
            "roc_auc": ">= 0.95",
            "adversarial_below_median_good": True,
            "median_good": ">= 0.75",
            "reversal_max_delta": "<= 0.02",
            "emails_per_s_one_core_afresh": ">= 1000",
        },
    }
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
