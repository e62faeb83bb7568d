"""The judge interface the loop scores groups through, and the factory that picks one.

Judges score a whole group at once (RULER ranks a group; an LLM judge may
batch), and every judge returns the rubric's result shape (`Judgement`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from codreamer.errors import ConfigError
from codreamer.models import FinalEmail, Judgement, Scenario, Sender
from codreamer.registry import JUDGES, resolve

if TYPE_CHECKING:
    from codreamer.config import Settings
    from codreamer.graph.store import GraphStore
    from codreamer.judge.rubric.total import FittedTotal


class GroupJudge(Protocol):
    name: str

    def score_group(
        self, emails: list[FinalEmail], scenario: Scenario, sender: Sender | None = None
    ) -> list[Judgement]:
        """One Judgement per email, in order, as read by the prospect of `scenario` from
        `sender` (who signs it: the judge checks the two are not confused). Raises
        JudgeError when it cannot judge."""
        ...


MEMO_SIZE = 50_000


class RubricGroupJudge:
    """The offline rubric, judging each email of a group on its own.

    The rubric is deterministic, and a learning policy writes the same email
    again and again, so judgements are memoised by (scenario, email).
    """

    name = "rubric"

    def __init__(self, store: GraphStore | None, total: FittedTotal | None = None) -> None:
        # Deferred: the rubric's embeddings load only where the rubric judges.
        from codreamer.judge.rubric import RubricJudge

        # `total`: how the criteria combine, when a team's ratings refitted it.
        self.rubric = RubricJudge(store, total)
        self._memo: dict[tuple[str, str, str, str, tuple[str, ...]], Judgement] = {}

    def score_group(
        self, emails: list[FinalEmail], scenario: Scenario, sender: Sender | None = None
    ) -> list[Judgement]:
        return [self.score(e, scenario, sender) for e in emails]

    def score(
        self, email: FinalEmail, scenario: Scenario, sender: Sender | None = None
    ) -> Judgement:
        who = sender.model_dump_json() if sender is not None else ""
        key = (_scenario_key(scenario), who, email.subject, email.body, tuple(email.citations))
        hit = self._memo.get(key)
        if hit is None:
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            hit = self._memo[key] = self.rubric.judge(email, scenario, sender)
        return hit  # shared: judgements are read-only once made


def _scenario_key(scenario: Scenario) -> str:
    return scenario.model_dump_json()


def make_judge(
    name: str,
    store: GraphStore | None,
    settings: Settings | None = None,
    total: FittedTotal | None = None,
) -> GroupJudge:
    """Build the named judge; LLM-backed ones are imported only when chosen, and need
    the settings (their endpoint and model) handed in. `total`: the rubric's total
    refitted to a team's ratings (default: the one fitted on the graded corpus)."""
    factory = resolve(JUDGES.get(name).factory)
    return factory(store, settings, total)  # type: ignore[no-any-return]


def rubric_judge(
    store: GraphStore | None, settings: Settings | None, total: FittedTotal | None
) -> GroupJudge:
    return RubricGroupJudge(store, total)


def llm_judge(
    store: GraphStore | None, settings: Settings | None, total: FittedTotal | None
) -> GroupJudge:
    # Deferred: an LLM judge loads only when chosen.
    from codreamer.judge.llm import LLMJudge

    return LLMJudge.from_settings(store, _needed(settings, "llm"))


def ruler_judge(
    store: GraphStore | None, settings: Settings | None, total: FittedTotal | None
) -> GroupJudge:
    # Deferred: RULER (and ART) load only when chosen.
    from codreamer.judge.ruler import RulerJudge

    return RulerJudge.from_settings(store, _needed(settings, "ruler"))


def _needed(settings: Settings | None, name: str) -> Settings:
    if settings is None:
        raise ConfigError(f"judge {name} needs the settings (its endpoint and model)")
    return settings
