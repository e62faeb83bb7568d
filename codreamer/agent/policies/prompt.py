"""An LLM policy's prompt, in named sections, with few-shot exemplars (DESIGN §3).

The prompt trainer (codreamer/train/prompt.py) edits a prompt one section at
a time through `PromptSuggestion`s; every change names the hash of the text it
replaced, so an override saved from one run (`codreamer prompts apply`) is
used by later runs only while that section still reads as it did when the
suggestion was made. Pure data: no I/O here.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# The instructions, one concept per section, in the order they are rendered.
DEFAULT_SECTIONS: dict[str, str] = {
    "role": "You are a sales research agent writing one outreach email for the sender.",
    "research": (
        "Walk the knowledge graph with the tools, starting at the seed node: "
        "get_connected_nodes lists a node's neighbours, get_relevant_context reads its "
        "facts. Build a step-by-step argument from the customer's job to a product feature."
    ),
    "writing": (
        "Then call finalize_email with a concise, personal email to the prospect that "
        "uses those facts in your own words."
    ),
    "ask": "Ask for the goal once, as a question.",
    "citations": "Cite the ids of the nodes whose facts you used.",
    "format": "Call one tool per reply. Reply with the tool call only.",
}

# Bounds that keep a prompt a prompt: an LLM-written or saved section cannot grow
# without limit, nor can the exemplar list.
MAX_SECTION_CHARS = 1200
MAX_EXEMPLARS = 4
MAX_EXEMPLAR_BODY_CHARS = 1200


def text_hash(text: str) -> str:
    """The short content hash a suggestion or override names its original by."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Exemplar(BaseModel):
    """One judged email shown to the model as an example of what works."""

    model_config = ConfigDict(frozen=True)

    scenario_id: str
    prospect: str  # "Name, Title at Company": who it was written for
    subject: str
    body: str = Field(max_length=MAX_EXEMPLAR_BODY_CHARS)
    citations: list[str]
    reward: float
    trajectory_id: str = ""
    iteration: int = 0


class PromptSuggestion(BaseModel):
    """A reviewable change to one section (a three-loop design's OptimizationLoop)."""

    section: str
    original_hash: str  # text_hash of the section body this suggestion replaces
    suggested: str = Field(max_length=MAX_SECTION_CHARS)
    rationale: str
    expected_impact: str
    criterion: str | None = None  # the judge criterion it answers, when rule-based
    source: Literal["rule", "llm"] = "rule"
    iteration: int = 0


class Prompt(BaseModel):
    """A prompt version: sections, exemplars and the changes that made it."""

    version: int = 0
    sections: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_SECTIONS))
    exemplars: list[Exemplar] = Field(default_factory=list)
    # The suggestions applied to the previous version to make this one.
    changes: list[PromptSuggestion] = Field(default_factory=list)
    # Saved overrides (`codreamer prompts apply`) this prompt started from.
    overrides_applied: list[str] = Field(default_factory=list)

    def hashes(self) -> dict[str, str]:
        return {name: text_hash(body) for name, body in self.sections.items()}

    def render(self) -> str:
        """The system message: the sections in order, then the exemplars."""
        parts = [body.strip() for body in self.sections.values() if body.strip()]
        text = " ".join(parts)
        if self.exemplars:
            shots = "\n\n".join(_render_exemplar(i + 1, e) for i, e in enumerate(self.exemplars))
            text += (
                "\n\nEmails that worked well for other prospects (write a new one for "
                "this prospect; do not copy):\n\n" + shots
            )
        return text

    def apply(self, suggestions: list[PromptSuggestion]) -> Prompt:
        """The next version, with every suggestion whose original still matches applied."""
        sections = dict(self.sections)
        applied = []
        for s in suggestions:
            current = sections.get(s.section)
            if current is not None and text_hash(current) != s.original_hash:
                continue  # written against other text: do not clobber it
            sections[s.section] = s.suggested
            applied.append(s)
        return self.model_copy(
            update={"version": self.version + 1, "sections": sections, "changes": applied}
        )


class PromptOverride(BaseModel):
    """A section body a person approved from a run, for later runs to start from."""

    section: str
    original_hash: str
    body: str = Field(max_length=MAX_SECTION_CHARS)
    run_id: str = ""
    rationale: str = ""


def with_overrides(prompt: Prompt, overrides: list[PromptOverride]) -> tuple[Prompt, list[str]]:
    """The prompt with each override whose section still hashes to its original;
    returns the prompt and one line per override left out (and why)."""
    sections = dict(prompt.sections)
    applied: list[str] = []
    skipped: list[str] = []
    for o in overrides:
        current = sections.get(o.section)
        if current is None:
            skipped.append(f"{o.section}: no such section")
        elif text_hash(current) != o.original_hash:
            skipped.append(f"{o.section}: the section changed since the override was saved")
        else:
            sections[o.section] = o.body
            applied.append(f"{o.section}@{o.original_hash}")
    return prompt.model_copy(update={"sections": sections, "overrides_applied": applied}), skipped


def _render_exemplar(n: int, e: Exemplar) -> str:
    return (
        f"Example {n}, to {e.prospect}:\nSubject: {e.subject}\n{e.body.strip()}\n"
        f"citations: {', '.join(e.citations)}"
    )
