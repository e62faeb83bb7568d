"""One run's working state: built from its files, checkpointed, restored on resume.

Everything here is per run. Nothing is shared between runs, so concurrent runs
never see each other's graph, scores or policy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from codreamer.agent.policies.base import Policy
from codreamer.agent.policies.factory import make_policy
from codreamer.agent.policies.prompt import Prompt, with_overrides
from codreamer.agent.rollout import RolloutEnv
from codreamer.agent.tools import AgentTools
from codreamer.config import Settings
from codreamer.graph.schema import parse_graph
from codreamer.graph.scores import NodeScores
from codreamer.graph.store import GraphStore
from codreamer.judge.base import GroupJudge, make_judge
from codreamer.judge.feedback import FeedbackEvent, FeedbackIndex
from codreamer.loop.agent_state import AgentState, load_start
from codreamer.loop.best import BestEmails, rebuild
from codreamer.loop.config import LoopConfig
from codreamer.models import Scenario, WebhookPayload
from codreamer.registry import POLICIES
from codreamer.store.events import EventLog
from codreamer.store.files import atomic_write_json, iter_jsonl, read_json
from codreamer.store.meta import RunMeta
from codreamer.store.paths import RunPaths
from codreamer.train.base import Trainer, make_trainer
from codreamer.train.prompt_store import load_overrides

WebhookSink = Callable[[WebhookPayload], object]  # what it returns is not used
StopCheck = Callable[[], bool]


@dataclass
class RunContext:
    """Everything one run works with. Built fresh per run: nothing is shared."""

    paths: RunPaths
    config: LoopConfig
    store: GraphStore
    scores: NodeScores
    tools: AgentTools
    policy: Policy
    trainer: Trainer
    judge: GroupJudge
    feedback: FeedbackIndex
    events: EventLog
    on_webhook: WebhookSink | None
    should_stop: StopCheck
    step_started_at: float = 0.0  # perf_counter() when the current step began
    # What the run took from its agent's version, and the judge's total it uses.
    agent: AgentState = field(default_factory=AgentState)
    # The best judged email so far per scenario id (rebuilt from files on resume).
    best: BestEmails = field(default_factory=BestEmails)

    def env(self, scenario: Scenario) -> RolloutEnv:
        return RolloutEnv(self.store, self.tools, scenario, self.config.depth, self.config.sender)


def build_context(
    paths: RunPaths,
    meta: RunMeta,
    events: EventLog,
    on_webhook: WebhookSink | None,
    should_stop: StopCheck | None,
    settings: Settings,
) -> RunContext:
    config = LoopConfig.from_meta(meta)
    store = GraphStore(parse_graph(read_json(paths.graph)))
    agent = load_start(paths, config, store)
    scores = NodeScores(store.nodes, agent.node_scores)
    feedback_path = meta.feedback_path
    feedback = (
        FeedbackIndex(FeedbackEvent.model_validate(row) for row in iter_jsonl(Path(feedback_path)))
        if feedback_path
        else FeedbackIndex()
    )
    policy = build_policy(config, store, settings)
    if agent.policy is not None:
        # Before the trainer is made: its reference policy is where the run starts.
        policy.load_state_dict(agent.policy)
    return RunContext(
        paths=paths,
        config=config,
        store=store,
        scores=scores,
        tools=AgentTools(store, scores),
        policy=policy,
        trainer=make_trainer(config.trainer, policy, settings, config.grpo),
        judge=make_judge(config.judge, store, settings, total=agent.total),
        feedback=feedback,
        events=events,
        on_webhook=on_webhook,
        should_stop=should_stop or (lambda: False),
        agent=agent,
    )


def build_policy(config: LoopConfig, store: GraphStore, settings: Settings) -> Policy:
    """The run's policy; an LLM policy starts from the saved prompt overrides
    (`codreamer prompts apply`) whose sections still read as they did."""
    prompt = None
    if POLICIES.get(config.policy).prompted:
        prompt = Prompt()
        overrides = load_overrides(settings.prompt_overrides_path)
        if overrides:
            prompt, _ = with_overrides(prompt, overrides)
    return make_policy(config.policy, store, settings, model=config.model, prompt=prompt)


def write_checkpoint(ctx: RunContext, i: int, train_stats: dict[str, float]) -> None:
    # The policy's parameters and the trainer's state (optimiser, reference) side
    # by side: a resume restores both and continues bit-for-bit.
    atomic_write_json(
        ctx.paths.policy(i),
        {
            "iteration": i,
            "train": train_stats,
            **ctx.policy.state_dict(),
            "trainer_state": ctx.trainer.state_dict(),
        },
    )
    if ctx.policy.prompt is not None:
        atomic_write_json(
            ctx.paths.prompt(i), {"iteration": i, **ctx.policy.prompt.model_dump(mode="json")}
        )
    atomic_write_json(ctx.paths.node_scores(i), ctx.scores.snapshot())


def restore_checkpoint(ctx: RunContext, done: int) -> None:
    state = read_json(ctx.paths.policy(done))
    ctx.policy.load_state_dict(state)
    ctx.trainer.load_state_dict(state["trainer_state"])
    ctx.scores = NodeScores(ctx.store.nodes, read_json(ctx.paths.node_scores(done)))
    ctx.tools = AgentTools(ctx.store, ctx.scores)
    ctx.best = rebuild(ctx.paths, ctx.config.scenario.id, done)


def last_complete_iteration(paths: RunPaths, iterations: int) -> int:
    """The highest k whose checkpoint and email all exist; -1 when none does."""
    for k in range(iterations, -1, -1):
        if paths.email(k).exists() and paths.policy(k).exists() and paths.node_scores(k).exists():
            return k
    return -1
