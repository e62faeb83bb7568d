"""Help text a newcomer can read: whole lines, words for placeholders, each default
said once.

Click and Typer, left alone, cut each command's summary with "..." in the command
list, show placeholders as types (`<int range>`, `<list[str]>`, `{emails}`) and
print a default again in brackets after a help text that already says it. `tidy`
walks the built command tree once and fixes all three, so no command has to.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, get_args, get_origin

from typer import _click as click  # the Click that Typer builds commands with
from typer.core import TyperArgument, TyperGroup, TyperOption

_SAYS_DEFAULT = re.compile(r"\bdefault\b", re.IGNORECASE)


class PlainArgument(TyperArgument):
    """An argument shown by its name (EMAILS), without Typer's type or braces."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: click.Context) -> str | None:  # noqa: ARG002
        return None


class PlainOption(TyperOption):
    """An option whose range, when it has one, is said in its help text (tidy)."""

    def _get_number_range_help_str(self) -> str:
        return ""


def _placeholder(param: TyperOption) -> str:
    desc = param.type_descriptor
    if desc.is_choice:
        return "|".join(str(c) for c in desc.choices or ())
    if desc.is_path:
        return "PATH"
    kind: Any = desc.annotation
    if get_origin(kind) is list:  # a repeatable option: one value per use
        kind = (get_args(kind) or (str,))[0]
    if kind is datetime:
        return "DATE"
    if kind is int:
        return "N"
    if kind is float:
        return "X"
    return "TEXT"


def _default_words(option: TyperOption) -> str | None:
    value: Any = option.default
    if option.is_flag or value is None or value is False or callable(value):
        return None
    if value in ((), []):
        return None
    return str(value)


def _range_words(param: TyperOption) -> str | None:
    lo, hi = param.min, param.max
    if lo is None and hi is None:
        return None
    if lo is not None and hi is not None:
        return f"{lo}-{hi}"
    return f"at least {lo}" if lo is not None else f"at most {hi}"


def _tidy_param(param: click.Parameter) -> None:
    if isinstance(param, TyperArgument):
        param.__class__ = PlainArgument  # its display only; parsing is unchanged
        if param.metavar is None:
            param.metavar = (param.name or "value").upper()
        return
    if not isinstance(param, TyperOption):
        return
    param.__class__ = PlainOption
    if param.metavar is None and not param.is_flag:
        param.metavar = _placeholder(param)
    help_text = (param.help or "").strip()
    said = []
    default = _default_words(param) if param.show_default else None
    if default is not None and not _SAYS_DEFAULT.search(help_text):
        said.append(f"default {default}")
    bounds = _range_words(param)
    if bounds is not None and bounds not in help_text:
        said.append(bounds)
    param.show_default = False
    if said:
        help_text = f"{help_text.rstrip('.')} ({'; '.join(said)})." if help_text else ""
        param.help = help_text or f"({'; '.join(said)})"


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n")[0].split())


def tidy(command: click.Command) -> None:
    """Whole summaries, word placeholders and one default, for `command` and all
    its subcommands."""
    for param in command.params:
        _tidy_param(param)
    if command.help and not command.short_help:
        command.short_help = _first_paragraph(command.help)
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)


class PlainGroup(TyperGroup):
    """The root command group: tidies the whole tree once it is built."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy(self)
