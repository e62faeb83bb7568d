"""How well the rubric judge agrees with sales readers (DESIGN §4, judge v3).

Prints one JSON object. The main figures are on the graded corpus' held-out graphs
(benchmarks/data/graded/, split.json; never fitted or tuned on):

- spearman: with the mean reader grade; inter_reader: the readers' own agreement
  (each reader against the mean of the others, and pairwise), the ceiling
- pairwise_accuracy: pairs whose mean grades differ by >= 1, ordered as readers do
- roc_auc: good (mean grade >= 4) against bad (<= 2)
- detection: per bad kind, the share scoring below the median good email
- emails_per_s_one_core_afresh: fresh judges and no memo of embeddings or judgements

- system_emails_on_panels: the system's own default emails that the blind panels of
  rounds 14 and 15 graded (old main against the writer of the day, on graphs that
  are not held out): how the judge ranks the emails the learner chooses between,
  which the corpus figures, spread from insulting to excellent, do not show

The same on the tuning graphs (fitted on: for reference), and the older sets:
calibration.jsonl (tuned on in round 3), heldout.jsonl and blind.jsonl (AUC, good
against bad).

Acceptance (judge v3): held-out Spearman >= 0.80 (or within 0.05 of inter-reader
agreement if lower), AUC >= 0.95, every bad kind >= 90 % below the median good
email, >= 1,000 emails/s on one core.

    uv run python benchmarks/bench_judge.py [--show heldout|tuning]
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
sys.path.insert(0, str(REPO / "benchmarks"))

import _graded  # noqa: E402
from _stats import auc as _auc  # noqa: E402
from _stats import pairwise_accuracy, spearman  # noqa: E402

from codreamer.graph.store import GraphStore  # noqa: E402
from codreamer.judge.rubric import RubricJudge, flaws, meaning  # noqa: E402
from codreamer.loaders import load_graph  # noqa: E402
from codreamer.models import FinalEmail, Scenario, Sender  # noqa: E402

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
    return _auc(good, bad)


# "llm": what an assistant wrote on request (packet W), meant neither good nor bad.
NOT_BAD_KINDS = ("good", "wrong-problem", "llm")


def graded(graph_ids: list[str], show: bool = False) -> dict:
    """Agreement with readers on the graded emails of these graphs."""
    es = _graded.emails(graph_ids, graded_only=True)
    judges: dict[str, RubricJudge] = {}
    scores, grades = [], []
    for e in es:
        j = judges.setdefault(e.graph, RubricJudge(_graded.graph(e.graph)))
        scores.append(j.judge(e.email, e.scenario, e.sender).total)
        grades.append(float(e.mean_grade or 0))
    good = [s for s, g in zip(scores, grades, strict=True) if g >= 4]
    bad = [s for s, g in zip(scores, grades, strict=True) if g <= 2]
    med = statistics.median(good) if good else float("nan")
    kinds: dict[str, list[float]] = {}
    for e, s in zip(es, scores, strict=True):
        if e.kind not in NOT_BAD_KINDS and not e.kind.startswith("system"):
            kinds.setdefault(e.kind, []).append(s)
    detection = {
        k: round(sum(1 for s in v if s < med) / len(v), 3) for k, v in sorted(kinds.items())
    }
    readers = sorted({r for e in es for r in e.grades})
    inter_loo, inter_pairs = [], []
    for r in readers:
        both = [(e.grades[r], statistics.fmean(v for q, v in e.grades.items() if q != r))
                for e in es if r in e.grades and len(e.grades) > 1]  # fmt: skip
        if len(both) > 2:
            inter_loo.append(spearman([a for a, _ in both], [b for _, b in both]))
    for i, r in enumerate(readers):
        for q in readers[i + 1 :]:
            both = [(e.grades[r], e.grades[q]) for e in es if r in e.grades and q in e.grades]
            if len(both) > 2:
                inter_pairs.append(spearman([a for a, _ in both], [b for _, b in both]))
    if show:
        for e, s, g in sorted(zip(es, scores, grades, strict=True), key=lambda x: -x[1]):
            print(f"{s:.3f} grade {g:.2f} {e.kind:20} {e.id}", file=sys.stderr)
    by_source: dict[str, list[tuple[float, float]]] = {}
    for e, s, g in zip(es, scores, grades, strict=True):
        by_source.setdefault(e.source, []).append((s, g))
    return {
        "graphs": graph_ids,
        "emails": len(es),
        "readers": len(readers),
        "grades_per_email_min": min((len(e.grades) for e in es), default=0),
        "spearman": round(spearman(scores, grades), 4),
        "inter_reader_spearman_vs_others": round(statistics.fmean(inter_loo), 4)
        if inter_loo
        else None,
        "inter_reader_spearman_pairwise": round(statistics.fmean(inter_pairs), 4)
        if inter_pairs
        else None,
        "pairwise_accuracy_gap1": round(pairwise_accuracy(scores, grades, 1.0), 4),
        "roc_auc_good4_bad2": round(auc(good, bad), 4),
        "good": len(good),
        "bad": len(bad),
        "median_good": round(med, 4),
        "detection_below_median_good": detection,
        "detection_min": min(detection.values()) if detection else None,
        "kinds_under_90pct": [k for k, v in detection.items() if v < 0.9],
        "per_source": {
            k: {
                "n": len(v),
                "mean_grade": round(statistics.fmean(g for _, g in v), 3),
                "mean_score": round(statistics.fmean(s for s, _ in v), 3),
                "spearman": round(spearman([s for s, _ in v], [g for _, g in v]), 4),
            }
            for k, v in sorted(by_source.items())
        },  # fmt: skip
    }


def system_emails_on_panels() -> dict:
    """Spearman of the judge with the mean reader grade on the panels' emails
    (`round14/panels`, `round15/panels`): every email of a panel, paired or not."""
    judges: dict[str, RubricJudge] = {}
    pooled: list[tuple[float, float]] = []
    per: dict[str, float] = {}
    for rnd in ("round14", "round15"):
        root = _graded.GRADED / rnd
        for folder in sorted((root / "panels").iterdir()):
            key = json.loads((folder / "key.json").read_text())
            emails = {}
            for f in folder.glob("emails-*.jsonl"):
                version = "old" if f.name.startswith("emails-old") else "new"
                for line in f.read_text().splitlines():
                    row = json.loads(line)
                    emails[(version, row["id"])] = row
            grades: dict[str, list[int]] = {}
            for f in sorted(folder.glob("r*.jsonl")):
                for line in f.read_text().splitlines():
                    g = json.loads(line)
                    grades.setdefault(g["id"], []).append(int(g["grade"]))
            scored = []
            for pid, (version, eid) in key.items():
                row = emails[(version, eid)]
                graph = row["graph"]
                if graph not in judges:
                    judges[graph] = RubricJudge(load_graph(root / "graphs" / f"{graph}.json"))
                sc = next(
                    Scenario.model_validate(s)
                    for s in json.loads((root / "prospects" / f"{graph}.json").read_text())
                    if s["id"] == row["scenario"]
                )
                total = (
                    judges[graph]
                    .judge(
                        FinalEmail.model_validate(row["email"]),
                        sc,
                        Sender.model_validate(row["sender"]),
                    )
                    .total
                )
                scored.append((total, statistics.fmean(grades[pid])))
            per[f"{rnd}/{folder.name}"] = round(spearman(*zip(*scored, strict=True)), 4)
            pooled += scored
    return {
        "emails": len(pooled),
        "spearman": round(spearman(*zip(*pooled, strict=True)), 4),
        "by_panel": per,
    }


def graded_throughput(graph_ids: list[str]) -> dict:
    """Emails per second, judged afresh: new judges and an empty embedding memo
    (the graph's own vectors built before the clock starts, as in a run), one core."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    es = _graded.emails(graph_ids)
    best = 0.0
    for _ in range(3):
        judges = {g: RubricJudge(_graded.graph(g)) for g in graph_ids}
        for e in es[:1] + [x for x in es if x.graph != es[0].graph]:
            judges[e.graph].vectors  # noqa: B018  (builds the graph's vectors)
        meaning._MEMO.clear()
        for g in graph_ids:
            j = judges[g]
            j._vectors = None
            _ = j.vectors
        sc_warm = {e.graph: e for e in es}
        for e in sc_warm.values():
            judges[e.graph]._scenario_info(e.scenario)
        # Afresh: only the graph's and the prospects' vectors survive (a run builds
        # them once); every memo of an email's words, sentences or tone starts empty.
        keep = dict(meaning._MEMO)
        meaning._MEMO.clear()
        meaning._MEMO.update(keep)
        meaning._CHUNK_IDS.clear()
        flaws._TONE_MEMO.clear()
        flaws._PROBLEM_MEMO.clear()
        t0 = time.perf_counter()
        for e in es:
            judges[e.graph].judge(e.email, e.scenario, e.sender)
        best = max(best, len(es) / (time.perf_counter() - t0))
    load = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    return {"emails_per_s_one_core_afresh": round(best), "load_average_1min": load}


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


def old_sets() -> dict:
    stores = graphs()
    judges = {k: RubricJudge(v) for k, v in stores.items()}
    sc = scenarios()
    cal = evaluate(load_set("calibration.jsonl"), judges, sc)
    held = evaluate(load_set("heldout.jsonl"), judges, sc)
    keep = ("emails", "roc_auc", "median_good", "max_adversarial", "max_adversarial_id")
    return {
        "calibration": {k: cal[k] for k in keep},
        "heldout": {k: held[k] for k in keep},
        "blind": blind(load_set("blind.jsonl"), judges, sample_scenarios()),
        **reversal(load_set("calibration.jsonl") + load_set("heldout.jsonl"), judges, sc),
    }


ADVERSARIAL = REPO / "benchmarks" / "data" / "adversarial"


def adversarial(median_good: float) -> dict:
    """Detection on benchmarks/data/adversarial/*.jsonl: emails of each bad kind (and
    near-miss good ones) on tuning graphs, written by a writer who never saw the
    judge, not graded by readers. The judge's patterns were extended against them, so
    this is a regression check, not evidence of generalisation (that is the held-out
    graphs' detection). A bad email is detected when it scores below `median_good`."""
    judges: dict[str, RubricJudge] = {}
    kinds: dict[str, list[float]] = {}
    for path in sorted(ADVERSARIAL.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            r = json.loads(line)
            sc = _graded.scenarios(r["graph"])[r["scenario"]]
            j = judges.setdefault(r["graph"], RubricJudge(_graded.graph(r["graph"])))
            sender = Sender.model_validate(r["sender"]) if r.get("sender") else None
            total = j.judge(FinalEmail.model_validate(r["email"]), sc, sender).total
            kinds.setdefault(r["kind"], []).append(total)
    return {
        "emails": sum(len(v) for v in kinds.values()),
        "median_good_threshold": round(median_good, 4),
        "detection_below_median_good": {
            k: round(sum(s < median_good for s in v) / len(v), 3)
            for k, v in sorted(kinds.items())
            if k not in NOT_BAD_KINDS
        },
        "good_mean_score": round(statistics.fmean(kinds["good"]), 4) if "good" in kinds else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--show", choices=["heldout", "tuning"], help="print every score (stderr)")
    args = ap.parse_args()
    split = _graded.split()
    held = graded(split["heldout"], show=args.show == "heldout")
    tuning = graded(split["tuning"], show=args.show == "tuning")
    out = {
        "heldout": held,
        "tuning": tuning,
        "adversarial_tuning_graphs": adversarial(tuning["median_good"]),
        "older_sets": old_sets(),
        "system_emails_on_panels": system_emails_on_panels(),
        **graded_throughput(split["heldout"]),
        "targets": {
            "heldout.spearman": ">= 0.80, or within 0.05 of inter-reader agreement if lower",
            "heldout.roc_auc_good4_bad2": ">= 0.95",
            "heldout.detection_below_median_good": ">= 0.9 for every bad kind",
            "emails_per_s_one_core_afresh": ">= 1000",
        },
    }
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
