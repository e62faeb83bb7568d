"""Weights, gates and bands of the rubric judge (DESIGN §4), all in one place.

The rubric (`codreamer.judge.rubric`) and its graph-free text criteria
(`codreamer.judge.text_criteria`) read their numbers from here and nowhere else;
`codreamer.judge.rubric` re-exports them. How they combine into a total is in the
rubric's module docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

# ============================ Weights and bands =============================


@dataclass(frozen=True)
class RubricWeights:
    """Weights of the additive criteria (they should sum to 1; the total divides by
    their sum anyway). Gates multiply; see the rubric's module docstring."""

    grounding: float = 0.15
    argument_chain: float = 0.25
    call_to_action: float = 0.20
    personalisation: float = 0.20
    concision: float = 0.05
    readability: float = 0.15

    def as_dict(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}


WEIGHTED = (
    "grounding",
    "argument_chain",
    "call_to_action",
    "personalisation",
    "concision",
    "readability",
)
GATES = ("english", "no_placeholders", "no_spam")
CRITERIA = WEIGHTED + GATES
GRAPH_CRITERIA = ("grounding", "argument_chain")

# grounding: a cited node counts as shown when this share of its content words
# (non-function words of 3+ letters) appears in the body; less gives pro-rata credit.
GROUNDING_FULL_OVERLAP = 0.6

# argument_chain: a chain that stops before a Product Feature earns at most this,
# times the share of the way it got (hops made / (hops made + hops still to go)).
CHAIN_INCOMPLETE_MAX = 0.5
CHAIN_DEAD_END_HOPS = 3  # "hops still to go" from a node that cannot reach a feature
CHAIN_EXTRA_CITATION_PENALTY = 0.1  # per citation past the feature or off the chain
CHAIN_EXTRA_FLOOR = 0.5
# Linking: share of hops whose step the body connects with a connective it added
# (connectives already inside the cited content don't count). A bare list keeps
# only the floor.
CHAIN_LINK_FLOOR = 0.3

# call_to_action scores.
CTA_ASKED = 1.0  # a question that carries the goal
CTA_STATED = 0.5  # the goal in a sentence, not asked
CTA_OTHER_QUESTION = 0.3  # a question, but not about the goal
CTA_LABEL = 0.2  # only a "Goal: ..." label
CTA_GOAL_MATCH = 0.5  # share of the goal's content words that must appear together

# personalisation parts (renormalised over the parts the prospect has).
PERS_FIRST_NAME = 0.45
PERS_COMPANY = 0.30
PERS_TITLE_OR_INDUSTRY = 0.15
PERS_SUBJECT = 0.10

# concision bands: (zero below, ideal from, ideal to, zero above), linear between.
BODY_WORDS_BAND = (15, 50, 200, 320)
SUBJECT_WORDS_BAND = (0, 2, 9, 18)
CONCISION_BODY_SHARE = 0.7  # the subject band takes the rest

# readability.
SENTENCE_WORDS_BAND = (2, 6, 30, 55)  # mean words per sentence
READ_SENTENCES = 0.30
READ_PROSE = 0.20  # share of lines that end like sentences (not list items)
READ_PARAGRAPHS = 0.20  # 3+ paragraphs: full; 2: 0.6; 1: 0.2
READ_GREETING = 0.15
READ_SIGNOFF = 0.15

# english: score 0 at or below this function-word share (or the best foreign
# language's share, whichever is higher), 1 at this much above it.
ENGLISH_FLOOR = 0.05
ENGLISH_SPAN = 0.13

# no_spam: each hit costs this much; all-caps words of 4+ letters beyond this many
# count as hits (a few acronyms such as HIPAA are normal).
SPAM_HIT_COST = 0.25
SPAM_CAPS_ALLOWED = 2

# ============================================================================
