"""Agents end to end: train, write for held-out leads, time a thousand, learn a team's taste.

    uv run python benchmarks/bench_agents.py [--iterations 6] [--ratings 120]

1. An agent is trained (`learn-loop --agent`) on 4 prospects of data/scenarios.json.
2. It writes, with no training, for 40 held-out leads read from a CSV laid out as a CRM
   exports it ("First Name", "Job Title", "Company Name"...): titles, industries and
   notes of the 4 other sample prospects, recombined with new names and companies.
   Their mean reward is compared with their oracles' (the best the judge can give in
   the embedded action space, codreamer/train/oracle.py).
3. 1,000 leads are written on one core (the process pinned to one CPU, BLAS single-
   threaded); CPU and wall time are reported.
4. A simulated team rates emails the agent writes (its policy sampled, so the emails
   vary). The team's taste differs from the judge's defaults: it reads for emails
   framed for the reader's role and seniority that stick to what is known (grade =
   1 + 4 * fit^0.5 * grounding^0.5, as the judge's own `fit` and `grounding` measure
   them; the default total weighs fit 0 and grounding 0.14, and what it weighs
   besides, the team ignores). A taste must be over what the rated emails vary in,
   or there is nothing to rank: earlier tastes were brevity and specificity (every
   email the agent writes scores 1.0 on concision) and relevance and specificity
   (111 of 120 rated emails score 1.0 on both: 5 distinct grades). The ratings go
   into the agent's feedback file; the next run continuing the agent refits the
   judge's total to them (held-out ratings kept out of the fit), and the benchmark
   checks agreement again on 60 further ratings no fit saw.

Prints one JSON object.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from codreamer.agent.rollout import RolloutEnv, rollout  # noqa: E402
from codreamer.agent.trajectory import TrajectoryMeta  # noqa: E402
from codreamer.config import Settings  # noqa: E402
from codreamer.judge.agreement import spearman  # noqa: E402
from codreamer.judge.feedback import email_key  # noqa: E402
from codreamer.judge.rubric import RubricJudge  # noqa: E402
from codreamer.judge.rubric.total import FittedTotal, default_total, unscored_of  # noqa: E402
from codreamer.leads import Lead, parse_csv, to_csv  # noqa: E402
from codreamer.loaders import load_scenarios  # noqa: E402
from codreamer.loop.write import AgentWriter  # noqa: E402
from codreamer.store.agents import AgentPaths, log_emails  # noqa: E402
from codreamer.store.feedback import append_feedback  # noqa: E402
from codreamer.store.files import read_json  # noqa: E402
from codreamer.train.oracle import oracle  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FIRST = ["Ana", "Ben", "Chloe", "Dev", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jade"]
LAST = ["Moreau", "Singh", "Okoro", "Larsen", "Ng", "Costa", "Weber", "Ito", "Diaz", "Hale"]


TASTE = "grade = 1 + 4 * sqrt(fit * grounding)"


def team_grade(scores: dict[str, float]) -> float:
    """The simulated team: is it written for my role, and does it stick to facts?"""
    return 1.0 + 4.0 * (scores["fit"] ** 0.5) * (scores["grounding"] ** 0.5)


def train(settings: Settings, scenario_ids: list[str], iterations: int) -> dict[str, object]:
    from codreamer.commands.runner import LoopRequest, config_from_cli
    from codreamer.loop.local import new_local_run
    from codreamer.runs.execute import execute_run

    req = LoopRequest(
        settings={"iterations": iterations, "agent": "bench", "seed": 0}, scenario=scenario_ids
    )
    store, config = config_from_cli(req, settings)
    paths = new_local_run(settings, store, config)
    result = execute_run(paths, settings)
    meta = read_json(paths.meta)
    refit = paths.dir / "judge_refit.json"
    return {
        "run_id": paths.run_id,
        "status": result.status,
        "started_from": config.agent_version,
        "recorded": meta.get("agent_version"),
        "final_reward": read_json(paths.final_email)["reward"],
        "judge_refit": read_json(refit) if refit.exists() else None,
    }


def held_out_csv(held: list, n: int, rng: random.Random) -> str:
    rows = []
    for i in range(n):
        s = held[i % len(held)].prospect
        rows.append(
            {
                "First Name": FIRST[i % 10],
                "Last Name": LAST[(i * 3 + 1) % 10],
                "E-mail Address": f"lead{i}@example.com",
                "Job Title": s.title or "",
                "Company Name": f"{rng.choice(['North', 'Blue', 'Prime', 'Summit'])} "
                f"{rng.choice(['Foods', 'Logistics', 'Carriers', 'Distribution'])} {i}",
                "Industry": s.industry or "",
                "Notes": s.notes or "",
                "Lead Owner": "bench",
            }
        )
    return to_csv(rows)


def rated_emails(writer: AgentWriter, leads: list[Lead], n: int, seed: int) -> list[dict]:
    """n emails the agent's policy samples for these leads, each with the team's grade."""
    judge = RubricJudge(writer.store)
    out = []
    for i in range(n):
        lead = leads[i % len(leads)]
        sc = writer.scenario(lead)
        env = RolloutEnv(writer.store, writer.tools, sc, writer.config.depth, writer.sender)
        meta = TrajectoryMeta(
            trajectory_id=f"r{i}", scenario_id=sc.id, iteration=0, seed=seed, policy="embedded"
        )
        email = rollout(writer.policy, env, np.random.default_rng([seed, i]), meta).final_email
        j = judge.judge(email, sc, writer.sender)
        scores = {k: c.score for k, c in j.criteria.items()}
        out.append(
            {
                "email": email,
                "scenario": sc,
                "scores": scores,
                "unscored": unscored_of({k: c.reason for k, c in j.criteria.items()}),
                "grade": team_grade(scores),
            }
        )
    return out


def agreement(total: FittedTotal, rows: list[dict]) -> float:
    return spearman(
        [total.total(r["scores"], r["unscored"]) for r in rows], [r["grade"] for r in rows]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=6)
    ap.add_argument("--ratings", type=int, default=120)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(CODREAMER_RESULTS_DIR=Path(tmp), CODREAMER_DATA_DIR=REPO / "data")  # type: ignore[call-arg]
        samples = load_scenarios(settings.scenarios_path)
        train_ids = [s.id for s in samples[:4]]
        first = train(settings, train_ids, args.iterations)

        # 2. Held-out leads from a CRM-style CSV, against their oracles.
        leads, problems = parse_csv(held_out_csv(samples[4:8], 40, random.Random(0)))
        writer = AgentWriter(settings.results_dir, "bench", settings)
        written = writer.write(leads)
        judge = RubricJudge(writer.store)
        oracles = [
            oracle(writer.store, writer.scenario(lead), writer.config.depth, judge,
                   sender=writer.sender).reward
            for lead in leads
        ]  # fmt: skip
        mean_agent = float(np.mean([r["reward"] for r in written]))
        mean_oracle = float(np.mean(oracles))

        # 3. A thousand leads on one core.
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        many = [Lead(i + 2, leads[i % 40].prospect.model_copy(update={
            "name": f"{FIRST[i % 10]} {LAST[i // 10 % 10]}{i}", "company": f"Firm {i}"}), {})
            for i in range(1000)]  # fmt: skip
        cpu0, wall0 = time.process_time(), time.perf_counter()
        writer.write(many)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0

        # 4. The simulated team rates emails; the next run refits the judge to them.
        rated = rated_emails(writer, leads, args.ratings, seed=1)
        agent = AgentPaths(settings.results_dir, "bench")
        log_emails(agent, [{
            "email_key": email_key(r["email"]), "email": r["email"].model_dump(),
            "scenario": r["scenario"].model_dump(mode="json"),
            "sender": writer.sender.model_dump(mode="json"), "lead_email": None}
            for r in rated])  # fmt: skip
        for r in rated:
            append_feedback(settings.results_dir, "bench", {
                "type": "human_preference", "email_key": email_key(r["email"]),
                "value": (r["grade"] - 1.0) / 4.0, "agent": "bench"})  # fmt: skip
        second = train(settings, train_ids, 2)
        v = agent.version(agent.latest() or 0)
        fitted = FittedTotal.from_dict(read_json(v.judge_total)) if v.judge_total.exists() else None
        fresh = rated_emails(writer, leads, 60, seed=2)  # ratings no fit has seen
        before = agreement(default_total(), fresh)
        after = agreement(fitted, fresh) if fitted else before

    print(json.dumps({
        "train": {"prospects": train_ids, **first},
        "held_out_leads": {
            "leads": len(leads), "csv_problems": len(problems),
            "mean_reward": round(mean_agent, 4), "mean_oracle": round(mean_oracle, 4),
            "ratio": round(mean_agent / mean_oracle, 4), "target": 0.93},
        "thousand_leads": {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "target_s": 5.0},
        "team": {
            "taste": TASTE,
            "ratings": len(rated), "continued": second,
            "fresh_ratings": len(fresh),
            "spearman_default_judge": round(before, 4),
            "spearman_refitted_judge": round(after, 4),
            "rise": round(after - before, 4), "target_rise": 0.15},
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
