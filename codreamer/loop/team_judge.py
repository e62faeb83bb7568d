"""The judge refitted to a team's ratings (DESIGN §4): what generalises from a rating.

Mixing a rating into the reward (codreamer/judge/feedback.py) only changes a run
when the very same email comes up again. What a team's ratings say in general is
how they weigh the judge's criteria: a team that cares for brevity and specificity
above all grades short, concrete emails up whatever else they do. So once an agent
has enough rated emails, a run continuing it refits the rubric's total (how the
criteria combine; never the criteria themselves) to those ratings with `fit_total`,
the same fit `benchmarks/fit_judge.py` makes on the graded corpus.

    ratings     human_preference events of the agent's feedback file, by email_key
                (a thumbs up is 1, down 0; 1-5 stars are (n - 1) / 4), averaged per
                email, as a grade 1 + 4 * value
    emails      the agent's email log (emails it wrote, with their prospect): a
                rating of an email the log does not hold cannot be judged and is
                counted as such
    threshold   MIN_RATINGS rated emails. Fewer than that, and 17 weights would be
                fitted to noise
    held out    a quarter of the rated emails (by a hash of their key: the same split
                every time) are kept out of the fit; the judge's agreement with the
                team on them (Spearman) is reported before and after
    adopted     only when the held-out agreement rises; the total is then used by
                the run's judge, stored with the version it records, and used by the
                agent's later runs and writes

The result is written in the run directory (judge_total.json, judge_refit.json)
once, so a resumed run judges as the uninterrupted one did.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from codreamer.graph.store import GraphStore
from codreamer.judge.agreement import spearman
from codreamer.judge.rubric import RubricJudge
from codreamer.judge.rubric.total import FittedTotal, default_total, fit_total, unscored_of
from codreamer.models import FinalEmail, Scenario, Sender
from codreamer.store.agents import AgentPaths, logged_emails
from codreamer.store.feedback import feedback_rows

MIN_RATINGS = 30
HELD_OUT_SHARE = 0.25

Row = tuple[dict[str, float], frozenset[str], float]


def team_grades(rows: list[dict[str, Any]]) -> dict[str, float]:
    """email_key -> mean grade 1-5 of the human ratings (judge ranks and outcomes are
    not a team's taste: outcomes are mixed into rewards, never fitted)."""
    values: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        key, value = r.get("email_key"), r.get("value")
        rated = r.get("type") == "human_preference" and isinstance(key, str)
        if rated and isinstance(value, (int, float)) and 0.0 <= value <= 1.0:
            values[str(key)].append(float(value))
    return {k: 1.0 + 4.0 * sum(v) / len(v) for k, v in values.items()}


def judged_rows(
    agent: AgentPaths, store: GraphStore, grades: dict[str, float]
) -> list[tuple[str, Row]]:
    """(email_key, (criterion scores, unscored, grade)) for every rated email the log
    holds, judged on the run's graph, in key order (deterministic)."""
    known: dict[str, dict[str, Any]] = {}
    for row in logged_emails(agent):
        key = row.get("email_key")
        if key in grades and "email" in row and "scenario" in row:
            known[key] = row
    judge = RubricJudge(store)
    out: list[tuple[str, Row]] = []
    for key in sorted(known):
        row = known[key]
        sender = Sender.model_validate(row["sender"]) if row.get("sender") else None
        email = FinalEmail.model_validate(row["email"])
        j = judge.judge(email, Scenario.model_validate(row["scenario"]), sender)
        scores = {k: c.score for k, c in j.criteria.items()}
        unscored = unscored_of({k: c.reason for k, c in j.criteria.items()})
        out.append((key, (scores, unscored, grades[key])))
    return out


def held_out(key: str) -> bool:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return digest[0] < int(256 * HELD_OUT_SHARE)


def agreement(total: FittedTotal, rows: list[Row]) -> float:
    return spearman([total.total(s, un) for s, un, _ in rows], [g for _, _, g in rows])


def refit(
    keyed: list[tuple[str, Row]], current: FittedTotal, rated: int, meta: dict[str, object]
) -> tuple[FittedTotal | None, dict[str, Any]]:
    """Fit on the training share, compare on the held-out share."""
    report: dict[str, Any] = {
        "ratings": rated,
        "judged": len(keyed),
        "threshold": MIN_RATINGS,
        "adopted": False,
    }
    if len(keyed) < MIN_RATINGS:
        report["reason"] = (
            f"{len(keyed)} rated emails the agent wrote; the judge is refitted from {MIN_RATINGS}"
        )
        return None, report
    train = [r for k, r in keyed if not held_out(k)]
    test = [r for k, r in keyed if held_out(k)]
    if len(test) < 5 or len(train) < 10:  # a lopsided split of few keys: take a stride
        train = [r for i, (_, r) in enumerate(keyed) if i % 4 != 3]
        test = [r for i, (_, r) in enumerate(keyed) if i % 4 == 3]
    fitted = fit_total(train, {**meta, "emails": len(train)})
    before, after = agreement(current, test), agreement(fitted, test)
    report.update(
        train=len(train),
        held_out=len(test),
        spearman_before=round(before, 4),
        spearman_after=round(after, 4),
        adopted=after > before,
    )
    if not report["adopted"]:
        report["reason"] = "the refitted total agreed no better on the held-out ratings"
        return None, report
    fitted.meta["held_out_spearman"] = round(after, 4)
    return fitted, report


def team_total(
    results_dir: Path, agent_name: str, store: GraphStore, current: FittedTotal | None
) -> tuple[FittedTotal | None, dict[str, Any]]:
    """The total refitted to the agent's team (None: keep `current`), and the report."""
    agent = AgentPaths(results_dir, agent_name)
    grades = team_grades(feedback_rows(results_dir, agent_name))
    keyed = judged_rows(agent, store, grades) if len(grades) >= MIN_RATINGS else []
    meta: dict[str, object] = {"source": f"feedback/{agent_name}.jsonl", "agent": agent_name}
    return refit(keyed, current or default_total(), len(grades), meta)
