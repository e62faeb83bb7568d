"""Which prospects a run trains on and which it holds out (DESIGN §2), decided once
for the CLI and the API alike.

* Scenarios given (ids, files, objects): those not marked `held_out` are trained
  on, the marked ones are held out. On the default graph, the sample held-out
  prospects are evaluated too when none of the given ones is held out.
* One scenario given, and it is held out (a sample prospect picked alone): the run
  trains on it; `notes` says so, since its reward then measures no generalisation.
* Several given, all held out: refused, saying what to do instead.
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
        if not train and len(given) == 1:
            return [given[0].model_copy(update={"held_out": False})], []
        if not train:
            names = ", ".join(repr(s.id) for s in given[:5])
            raise ScenarioError(
                f"scenarios: every scenario given ({names}) is a held-out prospect, kept "
                "aside to test what was learned, so there is nothing to train on. Send one "
                "of them alone to train on it, or add a prospect that is not held out "
                "(GET /scenarios marks which are)"
            )
        if not held and not own_graph:
            held = [s for s in samples if s.held_out and s.id not in ids]
        return train, held
    if own_graph:
        return [NEUTRAL_READER], []
    train = [s for s in samples if not s.held_out]
    held = [s for s in samples if s.held_out]
    return (train or [NEUTRAL_READER]), held


def notes(train: list[Scenario], samples: list[Scenario]) -> list[str]:
    """What a caller should know about the plan: a held-out sample trained on."""
    held = {s.id for s in samples if s.held_out}
    return [
        f"{s.id!r} is a held-out sample prospect; picked alone, the run trains on it, "
        "so its reward shows what was learned for it, not how well that carries over "
        "to a new prospect"
        for s in train
        if s.id in held
    ]


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
