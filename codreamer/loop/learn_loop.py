"""The learn-loop (DESIGN §2), top to bottom.

    baseline  greedy rollout, initial policy     -> iter0_*, webhook "baseline"
    for i in 1..iterations:
      step 1  group_size rollouts per scenario    -> iter{i}_step1_groups.jsonl
      step 2  judge, mix in feedback              -> iter{i}_step2_groups.jsonl, rewards
      step 3  the trainer updates the policy      -> iter{i}_policy.json
      step 4  cited nodes move toward rewards     -> iter{i}_node_scores.json
      email   greedy rollout, updated policy      -> iter{i}_email.json, webhook "iteration"
      (stop early once converged: `patience` iterations improved nothing, groups collapsed)
    final     the best email judged in the run, from any rollout (ties: later),
              the trained policy's greedy email beside it -> final_email.json,
              webhook "final"; step 5 evaluate -> eval_report.json

Step 1 draws one group of group_size rollouts for every training scenario
(`config.scenarios`); GRPO's advantages are computed within each group, so a
prospect is only ever compared with itself.

An iteration is complete once its email file exists (written last). A resumed
run restores the policy and node scores of the last complete iteration and
goes on; every random draw of iteration i comes from a generator seeded by
(seed, i), so it draws what an uninterrupted run would have drawn.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from codreamer.agent.rollout import rollout
from codreamer.agent.trajectory import Trajectory, TrajectoryMeta
from codreamer.config import Settings
from codreamer.errors import CoDreamerError, JudgeError, RunCancelled
from codreamer.loop.agent_state import free, record
from codreamer.loop.best import greedy_record
from codreamer.loop.config import LoopConfig
from codreamer.loop.context import (
    RunContext,
    StopCheck,
    WebhookSink,
    build_context,
    last_complete_iteration,
    restore_checkpoint,
    write_checkpoint,
)
from codreamer.loop.evaluate import evaluate
from codreamer.loop.records import (
    RunResult,
    groups_jsonl,
    per_traj_rows,
    reward_stats,
    run_result,
)
from codreamer.models import Scenario, WebhookPayload, utc_now_iso
from codreamer.registry import TRAINERS
from codreamer.store.events import EventListener, EventLog
from codreamer.store.files import (
    atomic_write_json,
    atomic_write_jsonl,
    atomic_write_text,
    read_json,
    remove_stale_temps,
)
from codreamer.store.meta import read_meta, update_meta
from codreamer.store.paths import RunPaths
from codreamer.tracing import init_tracing, op
from codreamer.train.grpo import frac_reward_zero_std

__all__ = ["STEPS", "RunResult", "last_complete_iteration", "run_learn_loop", "step_slot"]

# The steps of an iteration. Step 3 ("train") is reported in events and progress
# under the name of the trainer that ran it (grpo, prompt, art or none).
STEPS = ("generate", "score", "train", "kg_weights", "email")


# --- the loop ----------------------------------------------------------------


def run_learn_loop(
    paths: RunPaths,
    *,
    on_event: EventListener | None = None,
    on_webhook: WebhookSink | None = None,
    should_stop: StopCheck | None = None,
    settings: Settings,
    event_log: EventLog | None = None,
) -> RunResult:
    """Run (or resume) the run in `paths`, created by `create_run`.

    Pass `event_log` to share one log (and its `seq` counter) with other
    writers of events.jsonl, such as the webhook sender.
    """
    init_tracing(settings)  # Weave, only when WEAVE_PROJECT is set
    remove_stale_temps(paths.dir)
    meta = read_meta(paths)
    events = event_log or EventLog(paths.events, on_event)
    try:
        ctx = build_context(paths, meta, events, on_webhook, should_stop, settings)
    except Exception as exc:
        return _fail(paths, events, exc, _config_or_none(meta))

    config = ctx.config
    done = last_complete_iteration(paths, config.iterations)
    resumed = done >= 0
    update_meta(
        paths,
        status="running",
        started_at=meta.started_at or utc_now_iso(),
        finished_at=None,
        error=None,
    )
    events.emit("run_resumed" if resumed else "run_started", from_iteration=done + 1)
    if ctx.agent.refit is not None and not resumed:
        events.emit("judge_refit", agent=config.agent, **ctx.agent.refit)
    try:
        if done < 0:
            _baseline(ctx)
            done = 0
        else:
            restore_checkpoint(ctx, done)
            _announce_again(ctx, done)
        # A resumed run that had converged before it was stopped goes straight to its
        # final email, as the uninterrupted run did.
        last = done
        if not _converged(ctx, done):
            for i in range(done + 1, config.iterations + 1):
                _check_stop(ctx)
                _iteration(ctx, i)
                last = i
                if _converged(ctx, i):
                    break
        if last < config.iterations:
            ctx.events.emit(
                "run_converged",
                iteration=last,
                iterations=config.iterations,
                patience=config.patience,
                best_reward=ctx.best.reward(config.scenario.id),
            )
        _final(ctx, last)
        version = _record_agent(ctx)
    except RunCancelled:
        update_meta(paths, status="cancelled", finished_at=utc_now_iso())
        free(paths, config)
        events.emit("run_cancelled")
        return run_result(paths, "cancelled")
    except Exception as exc:
        return _fail(paths, events, exc, config)
    update_meta(paths, status="succeeded", finished_at=utc_now_iso(), agent_version=version)
    free(paths, config)
    events.emit("run_finished")
    return run_result(paths, "succeeded")


def _record_agent(ctx: RunContext) -> int | None:
    """The agent's next version, from the trained policy and node scores."""
    if not ctx.config.agent:
        return None
    version = record(
        ctx.paths,
        ctx.config,
        ctx.store,
        policy=ctx.policy.state_dict(),
        node_scores=ctx.scores.snapshot(),
        total=ctx.agent.total,
        refit=ctx.agent.refit,
        final=read_json(ctx.paths.final_email),
    )
    ctx.events.emit("agent_recorded", agent=ctx.config.agent, version=version)
    return version


def _baseline(ctx: RunContext) -> None:
    ctx.events.emit("iteration_started", iteration=0, stage="baseline")
    write_checkpoint(ctx, 0, train_stats={})
    email = _greedy_email(ctx, 0, improved=False)
    _progress(ctx, 0, "email", done=True, metrics={"iteration": 0, **email["metrics"]})
    ctx.events.emit("iteration_finished", iteration=0, reward=email["reward"])
    _webhook(ctx, "baseline", 0, email)


@op("learn_loop.iteration")
def _iteration(ctx: RunContext, i: int) -> None:
    paths, config = ctx.paths, ctx.config
    rng = np.random.default_rng([config.seed, i])
    ctx.events.emit("iteration_started", iteration=i)

    # Step 1: generate group_size rollouts per training scenario.
    _step(ctx, i, "generate")
    scenarios = list(config.scenarios)
    groups = [_generate_group(ctx, i, g, s, rng) for g, s in enumerate(scenarios)]
    atomic_write_text(paths.step1_groups(i), groups_jsonl(groups, scenarios))
    _step_done(ctx, i, "generate", rollouts=sum(len(g) for g in groups))

    # Step 2: score with the judge, mixed with feedback.
    _check_stop(ctx)
    _step(ctx, i, "score")
    judged, failures = _score_groups(ctx, groups, scenarios)
    stats = reward_stats([t for g in judged for t in g])
    atomic_write_text(paths.step2_groups(i), groups_jsonl(judged, scenarios))
    atomic_write_jsonl(paths.rewards_per_traj(i), per_traj_rows(judged))
    # TRL's frac_reward_zero_std: the share of groups that teach nothing.
    frac = frac_reward_zero_std(judged)
    metrics = {**stats.model_dump(), "judge_failures": failures, "frac_reward_zero_std": frac}
    atomic_write_json(paths.rewards_metrics(i), metrics)
    _step_done(ctx, i, "score", **stats.model_dump(), frac_reward_zero_std=frac)
    improved = ctx.best.offer_groups(judged)

    # Step 3: the trainer updates the policy (GRPO weights, ART weights, or the prompt).
    _check_stop(ctx)
    trainer = ctx.trainer.name
    _step(ctx, i, trainer)
    _offer_last_greedy(ctx, i)
    train_stats = ctx.trainer.step(ctx.policy, judged) if judged else {"groups": 0.0}
    _step_done(ctx, i, trainer, trainer=trainer, **train_stats)

    # Step 4: every cited node moves toward the rewards of the emails citing it.
    _check_stop(ctx)
    _step(ctx, i, "kg_weights")
    ctx.scores.update(_cited_rewards(judged), step=config.node_step)
    ctx.tools.invalidate()
    write_checkpoint(ctx, i, train_stats)
    _step_done(ctx, i, "kg_weights")

    # The iteration's email, greedy with the updated policy; written last.
    _step(ctx, i, "email")
    explore: dict[str, Any] = {
        k: train_stats[k] for k in ("temperature", "entropy") if k in train_stats
    }
    email = _greedy_email(ctx, i, extra_metrics={**metrics, **explore}, improved=improved)
    ctx.events.emit("iteration_finished", iteration=i, **email["metrics"])
    _progress(ctx, i, "email", done=True, metrics={"iteration": i, **email["metrics"]})
    _webhook(ctx, "iteration", i, email)


def _offer_last_greedy(ctx: RunContext, i: int) -> None:
    """Give a trainer that keeps elites (grpo) the previous iteration's greedy email
    too, in a single-prospect run: it was judged, and may be the run's best. Its
    decisions are those of the same rollout replayed (greedy, seeded as it was, with
    the policy and node scores unchanged since it was written), and its reward is
    the one on file: one code path for a fresh and a resumed run."""
    offer = getattr(ctx.trainer, "offer", None)
    # Only a single-prospect run: the greedy email is written for the first prospect
    # alone, and in a run on several it would favour that one's elite over the others'.
    if offer is None or len(ctx.config.scenarios) > 1:
        return
    prev = read_json(ctx.paths.email(i - 1))
    if prev.get("reward") is None:
        return
    scenario = ctx.config.scenario
    meta = TrajectoryMeta(
        trajectory_id=f"i{i - 1}-greedy",
        scenario_id=scenario.id,
        iteration=i - 1,
        seed=ctx.config.seed,
        policy=ctx.policy.name,
    )
    traj = rollout(
        ctx.policy,
        ctx.env(scenario),
        np.random.default_rng([ctx.config.seed, i - 1, 1]),
        meta,
        greedy=True,
    )
    if traj.final_email.model_dump() != prev["email"]:
        return  # not the email on file (a policy that does not replay): nothing to offer
    traj.reward = float(prev["reward"])
    offer([traj])


def _final(ctx: RunContext, last: int) -> None:
    n = ctx.config.iterations
    record = final_record(ctx, last)
    atomic_write_json(ctx.paths.final_email, record)
    # The webhook keeps iteration = n (the final event comes after every iteration's,
    # and receivers order events by it); where the email came from is a metric.
    _webhook(ctx, "final", n, record)
    # Held-out prospects when there are any; else, with several training prospects,
    # each of them gets its email (one prospect's is the final email already).
    split, targets = "held_out", ctx.config.eval_scenarios
    if not targets and len(ctx.config.scenarios) > 1:
        split, targets = "training", ctx.config.scenarios
    if targets:
        ctx.events.emit("step_started", iteration=n, step="evaluate")
        report = evaluate(
            ctx.policy,
            ctx.store,
            ctx.tools,
            targets,
            ctx.judge,
            ctx.config.depth,
            ctx.config.sender,
            split,
        )
        atomic_write_json(ctx.paths.eval_report, report.model_dump())
        ctx.events.emit(
            "step_finished", iteration=n, step="evaluate", mean_reward=report.mean_reward
        )


# --- the pieces ----------------------------------------------------------------


def _generate_group(
    ctx: RunContext, i: int, g: int, scenario: Scenario, rng: np.random.Generator
) -> list[Trajectory]:
    env = ctx.env(scenario)
    policy = ctx.policy
    metas = [
        TrajectoryMeta(
            trajectory_id=f"i{i}-g{g}-t{j}",
            scenario_id=scenario.id,
            iteration=i,
            group=g,
            index=j,
            seed=ctx.config.seed,
            policy=policy.name,
        )
        for j in range(ctx.config.group_size)
    ]
    # LLM policies run a group's rollouts concurrently (bounded).
    return policy.rollout_group(env, rng, metas)


def _score_groups(
    ctx: RunContext, groups: list[list[Trajectory]], scenarios: list[Scenario]
) -> tuple[list[list[Trajectory]], int]:
    """Judge each group; a group the judge fails on is reported and skipped."""
    judged: list[list[Trajectory]] = []
    failures = 0
    mix = ctx.config.feedback
    for g, (group, scenario) in enumerate(zip(groups, scenarios, strict=True)):
        try:
            results = ctx.judge.score_group(
                [t.final_email for t in group], scenario, ctx.config.sender
            )
        except (JudgeError, CoDreamerError) as exc:
            failures += 1
            ctx.events.emit("judge_failed", group=g, error=str(exc))
            continue
        for traj, j in zip(group, results, strict=True):
            reward, parts = ctx.feedback.mix(
                j.total, ctx.paths.run_id, traj.id, traj.final_email, mix.alpha, mix.beta, mix.gamma
            )
            traj.judgement = j
            traj.reward = reward
            traj.reward_components = parts
        judged.append(group)
    return judged, failures


def _cited_rewards(groups: list[list[Trajectory]]) -> list[tuple[list[str], float]]:
    """(citations, reward) of every judged trajectory, in rollout order (deterministic).
    All of them, good and bad: a score estimates how well emails citing a node do."""
    return [
        (t.final_email.citations, float(t.reward))
        for g in groups
        for t in g
        if t.reward is not None
    ]


def final_record(ctx: RunContext, last: int) -> dict[str, Any]:
    """final_email.json: the best email judged in the run for the primary scenario
    (from any rollout or greedy email; ties: the later), where it came from, and the
    trained policy's own greedy email (iteration `last`'s) beside it. With several
    training prospects, each one's best email too (`per_prospect`, with the prospect's
    name, so a reader of the record alone can say whose email it is)."""
    config = ctx.config
    primary = config.scenario.id
    greedy = read_json(ctx.paths.email(last))
    best = ctx.best.best(primary) or greedy_record(greedy)
    metrics: dict[str, Any] = {
        "from_iteration": best["iteration"],
        "from_greedy": bool(best["greedy"]),
        "final_reward": best["reward"],
        "greedy_reward": greedy["reward"],
        "iterations_run": last,
        "stopped_early": last < config.iterations,
    }
    record: dict[str, Any] = {
        **best,
        "stage": "final",
        "metrics": {k: v for k, v in metrics.items() if v is not None},
        "greedy_email": {
            "iteration": last,
            "email": greedy["email"],
            "reward": greedy["reward"],
            "trajectory_id": greedy.get("trajectory_id"),
        },
    }
    if len(config.scenarios) > 1:
        record["per_prospect"] = [
            {"scenario_id": s.id, "name": s.prospect.name, **_brief(ctx.best.best(s.id))}
            for s in config.scenarios
        ]
    return record


def _brief(best: dict[str, Any] | None) -> dict[str, Any]:
    if best is None:
        return {"iteration": None, "reward": None, "greedy": None, "email": None}
    return {k: best[k] for k in ("iteration", "reward", "greedy", "email")}


def _converged(ctx: RunContext, i: int) -> bool:
    """True when iterations i-K+1..i (K = patience) each improved no prospect's best
    judged email and had every group's rewards without spread. Read from the
    iterations' email records, so a resumed run decides as the uninterrupted one."""
    k = ctx.config.patience
    if k <= 0 or i < k:
        return False
    for j in range(i - k + 1, i + 1):
        m = read_json(ctx.paths.email(j)).get("metrics", {})
        if m.get("improved", True) or m.get("frac_reward_zero_std", 0.0) < 1.0:
            return False
    return True


def _greedy_email(
    ctx: RunContext,
    i: int,
    extra_metrics: dict[str, Any] | None = None,
    *,
    improved: bool,
) -> dict[str, Any]:
    scenario = ctx.config.scenario
    meta = TrajectoryMeta(
        trajectory_id=f"i{i}-greedy",
        scenario_id=scenario.id,
        iteration=i,
        seed=ctx.config.seed,
        policy=ctx.policy.name,
    )
    traj = rollout(
        ctx.policy,
        ctx.env(scenario),
        np.random.default_rng([ctx.config.seed, i, 1]),
        meta,
        greedy=True,
    )
    try:
        judgement = ctx.judge.score_group([traj.final_email], scenario, ctx.config.sender)[0]
        reward: float | None = judgement.total
        judged = judgement.model_dump()
    except (JudgeError, CoDreamerError) as exc:
        ctx.events.emit("judge_failed", iteration=i, group="greedy", error=str(exc))
        reward, judged = None, None
    metrics: dict[str, Any] = {}
    if extra_metrics:
        metrics.update(
            {
                k: extra_metrics[k]
                for k in (
                    "mean",
                    "median",
                    "min",
                    "max",
                    "std",
                    "frac_reward_zero_std",
                    "temperature",
                    "entropy",
                )
                if k in extra_metrics
            }
        )
    if reward is not None:
        metrics["greedy_reward"] = reward
    record = {
        "iteration": i,
        "email": traj.final_email.model_dump(),
        "reward": reward,
        "judgement": judged,
        "trajectory_id": traj.id,
        "hops": traj.metadata.hops,
        "style": traj.metadata.style,
        "auto_finalized": traj.metadata.auto_finalized,
        "metrics": metrics,
    }
    # The greedy email is judged too: it may be the run's best so far.
    improved = ctx.best.offer(scenario.id, greedy_record(record)) or improved
    best = ctx.best.reward(scenario.id)
    if best is not None:
        metrics["best_reward"] = best
    metrics["improved"] = improved if i > 0 else False
    atomic_write_json(ctx.paths.email(i), record)
    return record


def _announce_again(ctx: RunContext, done: int) -> None:
    """The webhook of the last complete iteration, once more. Its email is written
    before its event reaches the outbox, so a process killed between the two leaves
    an iteration that counts as done and an event nobody will send. The outbox
    ignores an event it already has, so this adds only what such a kill lost."""
    stage = "baseline" if done == 0 else "iteration"
    _webhook(ctx, stage, done, read_json(ctx.paths.email(done)))


def _webhook(ctx: RunContext, stage: str, i: int, email: dict[str, Any]) -> None:
    if ctx.on_webhook is None:
        return
    metrics = {
        k: float(v) for k, v in email.get("metrics", {}).items() if isinstance(v, (int, float))
    }
    payload = WebhookPayload(
        run_id=ctx.paths.run_id,
        stage=stage,  # type: ignore[arg-type]
        iteration=i,
        iterations=ctx.config.iterations,
        final_email=email["email"],
        node_scores=ctx.scores.snapshot(),
        metrics=metrics,
    )
    try:
        ctx.on_webhook(payload)
    except Exception as exc:  # delivery never fails the run
        ctx.events.emit("webhook_failed", stage=stage, iteration=i, error=str(exc))


# --- bookkeeping ----------------------------------------------------------------


def _check_stop(ctx: RunContext) -> None:
    if ctx.should_stop():
        raise RunCancelled("cancel requested")


def _step(ctx: RunContext, i: int, step: str) -> None:
    ctx.step_started_at = time.perf_counter()
    ctx.events.emit("step_started", iteration=i, step=step)
    _progress(ctx, i, step)


def _step_done(ctx: RunContext, i: int, step: str, **data: Any) -> None:
    ms = round((time.perf_counter() - ctx.step_started_at) * 1000, 2)
    ctx.events.emit("step_finished", iteration=i, step=step, ms=ms, **data)


def _progress(
    ctx: RunContext, i: int, step: str, done: bool = False, metrics: dict[str, Any] | None = None
) -> None:
    n = ctx.config.iterations
    slot = STEPS.index(step_slot(step) or step)
    steps_done = slot + (1 if done else 0) if i > 0 else (len(STEPS) if done else 0)
    fraction = (max(0, i - 1) * len(STEPS) + steps_done) / (n * len(STEPS)) if i > 0 else 0.0
    changes: dict[str, Any] = {
        "progress": {"iteration": i, "iterations": n, "step": step, "fraction": round(fraction, 4)}
    }
    if metrics is not None:
        its = [m for m in read_meta(ctx.paths).iteration_metrics if m["iteration"] != i]
        its.append(metrics)
        its.sort(key=lambda m: m["iteration"])
        changes["metrics"] = {"iterations": its}
    update_meta(ctx.paths, **changes)


def step_slot(step: str) -> str | None:
    """The STEPS entry of an event's step name: a trainer's name is step 3 ("train");
    None for a step outside the iteration (evaluate)."""
    if step in STEPS:
        return step
    return "train" if step in TRAINERS else None


def _config_or_none(meta: Any) -> LoopConfig | None:
    try:
        return LoopConfig.from_meta(meta)
    except ValueError:
        return None


def _fail(
    paths: RunPaths, events: EventLog, exc: BaseException, config: LoopConfig | None = None
) -> RunResult:
    message = f"{type(exc).__name__}: {exc}"
    try:
        update_meta(paths, status="failed", finished_at=utc_now_iso(), error=message)
        if config is not None:
            free(paths, config)
    finally:
        events.emit("run_failed", error=message)
    return run_result(paths, "failed", error=message)
