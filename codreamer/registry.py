"""The registries of policies, trainers and judges: one line each (DESIGN §10).

Every list of names, every help text naming the choices, the API schema's enums,
the default trainer of a policy, which trainer fits which policy, the readiness
check run before a run exists and the Celery queue a run goes to are read from
here. Adding a policy is one module (its factory) plus one `PolicyEntry` line in
POLICIES below (CONTRIBUTING.md).

Factories and checks are named by "module:attribute" strings, resolved only when
chosen: this module sits at the bottom of the layers and imports nothing heavy, so
`codreamer --help` stays light and the layers keep pointing down.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

Ref = str | Callable[..., Any]  # "package.module:attr.attr", or the callable itself


def resolve(ref: Ref) -> Callable[..., Any]:
    """The callable a registry entry names (imported now, on first use)."""
    if callable(ref):
        return ref
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


@dataclass(frozen=True)
class PolicyEntry:
    """A policy: who writes the emails.

    factory(store, settings, model, prompt) -> Policy; `trainers`: the trainers that
    can train it, the first being its default; `ready(settings)` raises ConfigError
    saying what to set or install; `queue`: the Celery queue its runs go to;
    `prompted`: it writes from a prompt (saved prompt overrides apply to it)."""

    name: str
    help: str
    factory: Ref
    trainers: tuple[str, ...] = ("none",)
    ready: Ref | None = None
    queue: Literal["default", "gpu"] = "default"
    prompted: bool = False


@dataclass(frozen=True)
class TrainerEntry:
    """A trainer: what learns in step 3. factory(policy, settings, grpo) -> Trainer."""

    name: str
    help: str
    factory: Ref


@dataclass(frozen=True)
class JudgeEntry:
    """A judge: who scores. factory(store, settings, total) -> GroupJudge;
    `ready(settings)` raises ConfigError saying what to set or install."""

    name: str
    help: str
    factory: Ref
    ready: Ref | None = None


E = TypeVar("E", PolicyEntry, TrainerEntry, JudgeEntry)


@dataclass
class Registry(Generic[E]):
    """Entries by name, in the order they were added (the order help lists them)."""

    kind: str
    _entries: dict[str, E] = field(default_factory=dict)

    def add(self, entry: E) -> E:
        if entry.name in self._entries:
            raise ValueError(f"{self.kind} {entry.name!r} is already registered")
        self._entries[entry.name] = entry
        return entry

    def remove(self, name: str) -> None:
        """Drop an entry (tests that add one take it away again)."""
        self._entries.pop(name, None)

    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def __iter__(self) -> Iterator[E]:
        return iter(list(self._entries.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def get(self, name: str) -> E:
        """The entry, or a ValueError naming the choices."""
        try:
            return self._entries[name]
        except KeyError:
            raise ValueError(
                f"unknown {self.kind} {name!r}: choose {', '.join(self._entries)}"
            ) from None

    def help(self) -> str:
        """One line naming each choice and what it is: "a (what a), b (what b)"."""
        return ", ".join(f"{e.name} ({e.help})" for e in self._entries.values())


POLICIES: Registry[PolicyEntry] = Registry("policy")
TRAINERS: Registry[TrainerEntry] = Registry("trainer")
JUDGES: Registry[JudgeEntry] = Registry("judge")

POLICIES.add(
    PolicyEntry(
        "embedded",
        "CPU, offline",
        "codreamer.agent.policies.embedded:EmbeddedPolicy.from_settings",
        trainers=("grpo", "none"),
    )
)
POLICIES.add(
    PolicyEntry(
        "openai",
        "an OpenAI-compatible endpoint",
        "codreamer.agent.policies.openai_policy:OpenAIPolicy.from_settings",
        trainers=("prompt", "none"),
        ready="codreamer.preflight:openai_ready",
        prompted=True,
    )
)
POLICIES.add(
    PolicyEntry(
        "art",
        "OpenPipe ART, needs a GPU or its serverless backend",
        "codreamer.agent.policies.art_policy:ArtPolicy.from_settings",
        trainers=("art", "prompt", "none"),
        ready="codreamer.preflight:art_ready",
        queue="gpu",
        prompted=True,
    )
)

TRAINERS.add(TrainerEntry("grpo", "GRPO, embedded only", "codreamer.train.base:grpo_trainer"))
TRAINERS.add(TrainerEntry("art", "ART's own training", "codreamer.train.base:art_trainer"))
TRAINERS.add(TrainerEntry("prompt", "rewrites the prompt", "codreamer.train.base:prompt_trainer"))
TRAINERS.add(TrainerEntry("none", "learns nothing", "codreamer.train.base:no_trainer"))

JUDGES.add(JudgeEntry("rubric", "offline, default", "codreamer.judge.base:rubric_judge"))
JUDGES.add(
    JudgeEntry(
        "llm", "an LLM grades", "codreamer.judge.base:llm_judge", "codreamer.preflight:llm_ready"
    )
)
JUDGES.add(
    JudgeEntry(
        "ruler",
        "ART's RULER ranks each group",
        "codreamer.judge.base:ruler_judge",
        "codreamer.preflight:ruler_ready",
    )
)


class OneOf:
    """A pydantic type annotation: a name in `registry`, checked and listed (as the
    JSON schema's enum) when used, so an entry added later is accepted and shown."""

    def __init__(self, registry: Registry[Any]) -> None:
        self.registry = registry

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        out = handler(schema)
        out["enum"] = list(self.registry.names())
        return out

    def _check(self, value: str) -> str:
        if value not in self.registry:
            names = [repr(n) for n in self.registry.names()]
            expected = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
            raise PydanticCustomError(
                "literal_error", "Input should be {expected}", {"expected": expected}
            )
        return value


PolicyName = Annotated[str, OneOf(POLICIES)]
TrainerName = Annotated[str, OneOf(TRAINERS)]
JudgeName = Annotated[str, OneOf(JUDGES)]


def default_trainer(policy: str) -> str:
    """The trainer a policy's runs use unless told otherwise."""
    return POLICIES.get(policy).trainers[0] if policy in POLICIES else "none"


def policies_trained_by(trainer: str) -> tuple[str, ...]:
    return tuple(p.name for p in POLICIES if trainer in p.trainers)


def check_pairing(trainer: str, policy: str) -> None:
    """A ValueError naming what works when `trainer` cannot train `policy`."""
    TRAINERS.get(trainer)
    fits = POLICIES.get(policy).trainers
    if trainer not in fits:
        raise ValueError(
            f"trainer {trainer} cannot train policy {policy}; "
            f"allowed with policy {policy}: {', '.join(fits)}"
        )
