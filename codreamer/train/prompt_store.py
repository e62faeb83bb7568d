"""Prompt files: a run's prompt versions (iter{i}_prompt.json) and the saved
overrides (`codreamer prompts apply`) that later runs start from.

The overrides file is one JSON object, `{"overrides": [PromptOverride, ...]}`,
at most one per section (the latest apply wins), written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from codreamer.agent.policies.prompt import Prompt, PromptOverride, text_hash
from codreamer.errors import CoDreamerError
from codreamer.store.files import atomic_write_json, read_json
from codreamer.store.paths import RunPaths


def load_overrides(path: Path) -> list[PromptOverride]:
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [PromptOverride.model_validate(o) for o in data.get("overrides", [])]
    except (ValueError, AttributeError, ValidationError) as exc:
        raise CoDreamerError(f"{path}: not a prompt overrides file ({exc})") from None


def save_overrides(path: Path, new: list[PromptOverride]) -> list[PromptOverride]:
    """Merge `new` into the file (one override per section, the new one wins)."""
    by_section = {o.section: o for o in load_overrides(path)}
    by_section.update({o.section: o for o in new})
    merged = [by_section[k] for k in sorted(by_section)]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, {"overrides": [o.model_dump(mode="json") for o in merged]})
    return merged


def prompt_versions(paths: RunPaths) -> list[tuple[int, Prompt]]:
    """Every prompt version a run recorded, by iteration."""
    out = []
    for p in paths.dir.glob("iter*_prompt.json"):
        stem = p.name.removeprefix("iter").removesuffix("_prompt.json")
        if stem.isdigit():
            data = read_json(p)
            data.pop("iteration", None)
            out.append((int(stem), Prompt.model_validate(data)))
    return sorted(out, key=lambda x: x[0])


def overrides_from_run(
    paths: RunPaths, iteration: int | None = None, sections: list[str] | None = None
) -> list[PromptOverride]:
    """The sections a run changed, from its first prompt to the one after `iteration`
    (default: the last), as overrides keyed by the first prompt's text."""
    versions = prompt_versions(paths)
    if not versions:
        raise CoDreamerError(f"run {paths.run_id} has no prompt versions (not an LLM policy?)")
    first = versions[0][1]
    chosen = [v for k, v in versions if iteration is None or k <= iteration]
    if not chosen:
        raise CoDreamerError(f"run {paths.run_id} has no prompt at iteration {iteration}")
    last = chosen[-1]
    # A section the run started from an override of is keyed, like that override,
    # by the code's own text: that is what a later run's prompt is checked against.
    base_hash = dict(a.split("@", 1) for a in first.overrides_applied if "@" in a)
    rationale: dict[str, str] = {}
    for v in chosen:
        for change in v.changes:
            rationale[change.section] = change.rationale
    out = []
    for name, body in last.sections.items():
        if name not in first.sections or body == first.sections[name]:
            continue
        if sections and name not in sections:
            continue
        out.append(
            PromptOverride(
                section=name,
                original_hash=base_hash.get(name) or text_hash(first.sections[name]),
                body=body,
                run_id=paths.run_id,
                rationale=rationale.get(name, ""),
            )
        )
    return out
