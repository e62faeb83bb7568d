"""Which prospects a run trains on and which it holds out (DESIGN §2), decided once
for the CLI and the API alike.

* Scenarios given (ids, files, objects): those not marked `held_out` are trained
  on, the marked ones are held out. On the default graph, the sample held-out
  prospects are evaluated too when none of the given ones is held out.
* None given, default graph: the sample scenarios, split by their `held_out` flag.
* None given, the request's own graph: a neutral reader ("Hi there,"), never a
  sample prospect written for another business; nothing is held out.
"""

from __future__ import annotations

from codreamer.errors import ScenarioError
from codreamer.models import Prospect, Scenario

NEUTRAL_READER = Scenario(
    id="neutral-reader",
    prospect=Prospect(prospect_id="neutral-reader", name="there"),
    goal="Secure a 20-minute discovery call",
)
MAX_SCENARIOS = 64


def plan_scenarios(
    given: list[Scenario], samples: list[Scenario], own_graph: bool
) -> tuple[list[Scenario], list[Scenario]]:
    """(training, held_out) for a run."""
    if len(given) > MAX_SCENARIOS:
        raise ScenarioError(f"scenarios: at most {MAX_SCENARIOS}, got {len(given)}")
    ids = [s.id for s in given]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ScenarioError(f"scenarios: duplicate scenario id {dupes[0]!r}")
    if given:
        train = [s for s in given if not s.held_out]
        held = [s for s in given if s.held_out]
        if not train:
            raise ScenarioError("scenarios: every scenario given is held out; nothing to train on")
        if not held and not own_graph:
            held = [s for s in samples if s.held_out and s.id not in ids]
        return train, held
    if own_graph:
        return [NEUTRAL_READER], []
    train = [s for s in samples if not s.held_out]
    held = [s for s in samples if s.held_out]
    return (train or [NEUTRAL_READER]), held


def describe(scenarios: list[Scenario]) -> list[dict[str, str | None]]:
    """Who a run writes to, as the response and meta.json say it."""
    return [
        {
            "scenario_id": s.id,
            "name": s.prospect.name,
            "title": s.prospect.title,
            "company": s.prospect.company,
        }
        for s in scenarios
    ]
