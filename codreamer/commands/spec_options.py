"""The CLI's run-setting options, generated from RunSpec (codreamer/run_settings.py).

Each field of RunSpec becomes `--field-name` on `learn-loop`, with the field's
meaning as help, its default (and the environment variable that changes it) said
once, and the registries' names for choices; `sender` becomes one option per
field of Sender. A setting added to RunSettings, or a policy added to the registry,
appears here with no edit. Bounds are checked by RunSpec, the same check and the
same message as the API's.
"""

from __future__ import annotations

import inspect
from typing import Any

import typer
from pydantic.fields import FieldInfo

from codreamer.models import Sender
from codreamer.registry import JUDGES, POLICIES, TRAINERS, Registry, default_trainer
from codreamer.runs.spec import DEFAULT_DEPTH, ENVIRONMENT, RunSpec, bounds, env_name

# Positional as well as options, for `learn-loop 3 5` (the original form).
POSITIONAL = ("iterations", "depth")
_CHOICES: dict[str, Registry[Any]] = {"policy": POLICIES, "trainer": TRAINERS, "judge": JUDGES}
_SENDER_ENV = {
    "name": "CODREAMER_SENDER_NAME",
    "company": "CODREAMER_SENDER_COMPANY",
    "title": "CODREAMER_SENDER_TITLE",
}


def option_help(name: str, f: FieldInfo | None = None) -> str:
    """The setting's meaning, then its default once: "(default 3; env NUM_ITERS)"."""
    f = f or RunSpec.model_fields[name]
    text = (f.description or "").strip()
    if name in _CHOICES:
        text = _choice_help(name)
    env = env_name(ENVIRONMENT[name]) if name in ENVIRONMENT else None
    default = None if f.is_required() or f.default_factory else f.default
    said = [f"default {default}"] if default is not None else []
    said += [f"env {env}"] if env else []
    return f"{text.rstrip('.')} ({'; '.join(said)})." if said else text


def _choice_help(name: str) -> str:
    # Read from the registry when the app is built, so a policy added is listed.
    registry = _CHOICES[name]
    names = " | ".join(registry.names())
    if name == "trainer":
        by_policy = ", ".join(f"{p} {default_trainer(p)}" for p in POLICIES.names())
        return f"What learns: {names}. Default by policy: {by_policy}"
    return f"{RunSpec.model_fields[name].description.split(':')[0]}: {names}"  # type: ignore[union-attr]


def first_sentence(name: str) -> str:
    """The first sentence of a setting's meaning and its default, for commands that
    only borrow it (a walk's depth in `oracle`, `demo`)."""
    f = RunSpec.model_fields[name]
    text = (f.description or "").split(". ")[0].rstrip(".")
    return f"{text} (default {f.default})."


def depth_option() -> Any:
    """`--depth` for commands outside a run: the spec's default, a short meaning."""
    lo, hi = bounds("depth")
    return typer.Option("--depth", min=lo, max=hi, metavar="N", help=first_sentence("depth"))


def spec_parameters() -> list[inspect.Parameter]:
    """learn-loop's parameters for every run setting: the positionals first."""
    params = [
        inspect.Parameter(
            f"{name}_arg",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=typer.Argument(
                None,
                metavar=name.upper(),
                help=f"Same as --{name}.",
                show_default=False,
            ),
            annotation=int | None,
        )
        for name in POSITIONAL
    ]
    for name, f in RunSpec.model_fields.items():
        if name == "sender":
            params += _sender_parameters()
            continue
        is_int = f.annotation is int
        params.append(
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=typer.Option(
                    None,
                    "--" + name.replace("_", "-"),
                    metavar="N" if is_int else "NAME",
                    help=option_help(name),
                    show_default=False,
                ),
                annotation=int | None if is_int else str | None,
            )
        )
    return params


def _sender_parameters() -> list[inspect.Parameter]:
    out = []
    for key, f in Sender.model_fields.items():
        said = f"default {f.default}; " if f.default else ""
        out.append(
            inspect.Parameter(
                f"sender_{key}",
                inspect.Parameter.KEYWORD_ONLY,
                default=typer.Option(
                    None,
                    f"--sender-{key}",
                    metavar="TEXT",
                    help=f"{(f.description or '').rstrip('.')} ({said}env {_SENDER_ENV[key]}).",
                    show_default=False,
                ),
                annotation=str | None,
            )
        )
    return out


def settings_given(values: dict[str, Any]) -> dict[str, Any]:
    """The run settings the command line gave (None: not given), by RunSpec name,
    from learn-loop's parameters; a positional and its option must agree."""
    given: dict[str, Any] = {}
    for name in RunSpec.model_fields:
        if name == "sender":
            continue
        value = values.get(name)
        if name in POSITIONAL:
            positional = values.get(f"{name}_arg")
            if positional is not None and value is not None and positional != value:
                raise typer.BadParameter(
                    f"{name} given twice ({positional} and --{name} {value}): give one"
                )
            value = value if value is not None else positional
        given[name] = value
    return given


__all__ = ["DEFAULT_DEPTH", "depth_option", "option_help", "settings_given", "spec_parameters"]
