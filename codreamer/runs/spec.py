"""RunSpec: every setting a caller chooses for a run, resolved once (DESIGN §2).

The settings are declared once, in RunSettings (codreamer/run_settings.py): name,
default, bounds, meaning. From them the API's request model is generated
(`request_fields`, used by codreamer/api/schemas.py) and so are the CLI's options
(codreamer/commands/spec_options.py). `build_loop_config` resolves a run's settings
once, whether they come from the API body, the CLI or the environment, in that
order of precedence:

    given (request body / command line)  >  environment (Settings)  >  default

and produces the `LoopConfig` stored in meta.json. The pure core (codreamer/loop,
agent, train) never validates these again: it reads the resolved values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field, StrictInt

from codreamer.config import Settings
from codreamer.graph.schema import check_seed_nodes
from codreamer.loop.config import LoopConfig
from codreamer.loop.scenarios import plan_scenarios
from codreamer.models import Scenario
from codreamer.run_settings import RunSettings


class RunSpec(RunSettings):
    """The run settings a caller asks for. Construct with `resolve`."""

    @classmethod
    def resolve(cls, given: Mapping[str, Any], settings: Settings) -> RunSpec:
        """The spec from what a caller gave (None: not given) over the environment's
        defaults. Raises pydantic's ValidationError naming the field at fault."""
        values = {k: v for k, v in _from_environment(settings).items() if v is not None}
        values.update({k: v for k, v in given.items() if v is not None})
        return cls.model_validate(values)

    def loop_config(
        self, train: list[Scenario], held_out: list[Scenario] | None = None, **knobs: Any
    ) -> LoopConfig:
        """The resolved config of a run on these scenarios (what meta.json stores);
        `knobs`: LoopConfig's other fields (model, node_step, grpo, feedback)."""
        return LoopConfig.model_validate(
            {**self.model_dump(), "scenarios": train, "eval_scenarios": held_out or [], **knobs}
        )


# The Settings field that defaults each run setting from the environment (DESIGN §9).
ENVIRONMENT: dict[str, str] = {
    "iterations": "num_iters",
    "depth": "depth",
    "policy": "policy",
    "judge": "judge",
    "sender": "sender",
}


def _from_environment(settings: Settings) -> dict[str, Any]:
    return {name: getattr(settings, attr) for name, attr in ENVIRONMENT.items()}


def env_name(field: str) -> str | None:
    """The environment variable that defaults a Settings field (its first alias)."""
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info is not None else None
    if isinstance(alias, str):
        return alias
    choices = getattr(alias, "choices", None)
    return str(choices[0]) if choices else None


def build_loop_config(
    given: Mapping[str, Any],
    scenarios: list[Scenario],
    samples: list[Scenario],
    *,
    own_graph: bool,
    node_ids: Any,
    settings: Settings,
    knobs: Mapping[str, Any] | None = None,
) -> LoopConfig:
    """The one way a run's config is built, for the API and the CLI alike: the spec
    resolved once, the scenarios planned (DESIGN §2) and their seed nodes checked
    against the run's graph. Raises before anything is written."""

    spec = RunSpec.resolve(given, settings)
    train, held_out = plan_scenarios(scenarios, samples, own_graph)
    for s in train + held_out:  # a missing seed node is named
        check_seed_nodes(node_ids, s)
    return spec.loop_config(train, held_out, **dict(knobs or {}))


# Field constraints that go on the request's Field (so the schema and FieldInfo show
# them); any other annotation metadata (a registry's OneOf) stays on the type.
_CONSTRAINTS = ("ge", "le", "gt", "lt", "min_length", "max_length", "pattern")


def request_fields() -> dict[str, Any]:
    """Each run setting as an optional request field (None: not given) with the spec's
    type, bounds and meaning, for `pydantic.create_model`: the API's request model is
    generated from here, so a setting added to RunSettings is in the API at once.
    Integers are strict (a JSON "3" is refused, not coerced)."""
    out: dict[str, Any] = {}
    for name, f in RunSpec.model_fields.items():
        bounds: dict[str, Any] = {}
        other: list[Any] = []
        for m in f.metadata:
            found = {k: getattr(m, k) for k in _CONSTRAINTS if getattr(m, k, None) is not None}
            bounds.update(found)
            if not found:
                other.append(m)
        kind: Any = StrictInt if f.annotation is int else f.annotation
        if other:
            kind = Annotated.__class_getitem__((kind, *other))  # type: ignore[attr-defined]
        # Omitted means the spec's default: the schema says which, so a client (the
        # dashboard's form) shows the same default as the CLI without declaring its own.
        extra: dict[str, Any] | None = (
            {"default": f.default} if isinstance(f.default, int | str) else None
        )
        out[name] = (
            kind | None,
            Field(None, description=f.description, json_schema_extra=extra, **bounds),
        )
    return out


DEFAULT_DEPTH: int = RunSpec.model_fields["depth"].default


def bounds(name: str) -> tuple[Any, Any]:
    """A run setting's (lowest, highest) allowed value (None: unbounded)."""
    meta = RunSpec.model_fields[name].metadata
    lo = next((m.ge for m in meta if getattr(m, "ge", None) is not None), None)
    hi = next((m.le for m in meta if getattr(m, "le", None) is not None), None)
    return lo, hi
