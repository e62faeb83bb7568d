"""RunSpec: every setting a caller chooses for a run, declared once (DESIGN §2).

Each field below is the one declaration of a run setting: its name, its default,
its bounds and its one meaning. The API's request schema (codreamer/api/schemas.py)
and the CLI take their bounds and help from here; `build_loop_config` resolves a
run's settings once, whether they come from the API body, the CLI or the
environment, in that order of precedence:

    given (request body / command line)  >  environment (Settings)  >  default here

and produces the `LoopConfig` stored in meta.json. The pure core (codreamer/loop,
agent, train) never validates these again: it reads the resolved values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from codreamer.config import JudgeName, PolicyName, Settings
from codreamer.loop.config import LoopConfig
from codreamer.models import Scenario, Sender

TrainerName = Literal["grpo", "art", "prompt", "none"]

DEPTH_MEANING = (
    "The most hops a rollout may walk from its seed node (1-12). A rollout therefore "
    "has at most depth + 1 exploring turns (the seed's, then one per hop) before it is "
    "finalized with what it has; as a guard against a policy that neither explores nor "
    "finalizes (an LLM replying in prose), a rollout also ends after 2 * (depth + 2) "
    "turns of any kind. The oracle searches walks of at most `depth` hops."
)

PATIENCE_MEANING = (
    "Early stop on convergence (0-50; 0 turns it off): the run ends after iteration i "
    "when none of the last `patience` iterations improved the best judged email of any "
    "prospect and every group in each of them had rewards with no spread "
    "(frac_reward_zero_std = 1). It then writes its final email and says so in a "
    "`run_converged` event."
)


AGENT_MEANING = (
    "A named agent (1-64 letters, digits, '-' or '_'): the run starts from its latest "
    "version (its policy, node scores and the judge refitted to its team's ratings) "
    "and, on success, records the next version; a new name starts a new agent. One "
    "run at a time continues an agent (409 while another does)."
)


class RunSpec(BaseModel):
    """The run settings, each declared once. Construct with `resolve`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    iterations: int = Field(
        3, ge=1, le=50, description="Learning iterations after the baseline (1-50)."
    )
    depth: int = Field(5, ge=1, le=12, description=DEPTH_MEANING)
    group_size: int = Field(
        16,
        ge=2,
        le=256,
        description="Rollouts per training scenario per iteration (2-256). GRPO's baseline "
        "is the group mean, so a group needs a few members for its mean and spread to "
        "mean something; 16 does it and still runs an iteration in milliseconds.",
    )
    seed: int = Field(
        0,
        ge=0,
        le=2**32 - 1,
        description="Root of every random stream of the run: iteration k samples from a "
        "generator seeded by (seed, k), so the same inputs and seed give the same run, "
        "and a resumed run draws what an uninterrupted one would.",
    )
    policy: PolicyName = Field(
        "embedded", description="Who writes: embedded (CPU, offline), openai or art."
    )
    trainer: TrainerName | None = Field(
        None,
        description="What learns in step 3; default by policy: embedded grpo, openai "
        "prompt, art art.",
    )
    judge: JudgeName = Field(
        "rubric", description="Who scores: rubric (offline, default), llm or ruler."
    )
    sender: Sender = Field(default_factory=Sender, description="Who signs the emails.")
    patience: int = Field(
        5,
        ge=0,
        le=50,
        description=PATIENCE_MEANING,
    )
    agent: str | None = Field(
        None,
        max_length=64,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$",
        description=AGENT_MEANING,
    )

    @field_validator("trainer")
    @classmethod
    def _trainer_fits_policy(cls, trainer: str | None, info: ValidationInfo) -> str | None:
        # A field validator, so the error names `trainer` (`policy` is declared first,
        # so it is in info.data when it was valid).
        from codreamer.train.base import check_pairing

        policy = info.data.get("policy")
        if trainer is not None and policy is not None:
            try:
                check_pairing(trainer, policy)
            except ValueError as exc:  # a custom error: no "Value error, " in front
                raise PydanticCustomError("trainer_policy", str(exc)) from None
        return trainer

    @model_validator(mode="after")
    def _default_trainer(self) -> RunSpec:
        from codreamer.train.base import default_trainer

        if self.trainer is None:  # frozen: resolved once, here
            object.__setattr__(self, "trainer", default_trainer(self.policy))
        return self

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


def _from_environment(settings: Settings) -> dict[str, Any]:
    # The environment's name for each setting it can default (DESIGN §9).
    return {
        "iterations": settings.num_iters,
        "depth": settings.depth,
        "policy": settings.policy,
        "judge": settings.judge,
        "sender": settings.sender,
    }


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
    from codreamer.graph.schema import check_seed_nodes
    from codreamer.loop.scenarios import plan_scenarios

    spec = RunSpec.resolve(given, settings)
    train, held_out = plan_scenarios(scenarios, samples, own_graph)
    for s in train + held_out:  # a missing seed node is named
        check_seed_nodes(node_ids, s)
    return spec.loop_config(train, held_out, **dict(knobs or {}))


def request_field(name: str, **extra: Any) -> Any:
    """An optional field (None: not given) with the spec's bounds and meaning, for the
    API's request schema."""
    spec: FieldInfo = RunSpec.model_fields[name]
    bounds: dict[str, Any] = {}
    for m in spec.metadata:
        for key in ("ge", "le", "gt", "lt"):
            if getattr(m, key, None) is not None:
                bounds[key] = getattr(m, key)
    return Field(None, description=spec.description, **bounds, **extra)


DEFAULT_DEPTH: int = RunSpec.model_fields["depth"].default


def cli_depth_option() -> Any:
    """`--depth` for the commands outside a run (oracle, a single rollout): the spec's
    bounds, default and meaning."""
    import typer

    f = RunSpec.model_fields["depth"]
    lo, hi = (getattr(m, k) for k in ("ge", "le") for m in f.metadata if hasattr(m, k))
    return typer.Option(min=lo, max=hi, help=cli_help("depth"))


def cli_help(name: str, env: str | None = None) -> str:
    """The spec's meaning of a setting, with its default, for a CLI option's help."""
    f = RunSpec.model_fields[name]
    where = f"env {env}; " if env else ""
    return f"{f.description} ({where}default {f.default})."
