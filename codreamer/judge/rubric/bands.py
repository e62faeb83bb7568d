"""Bands and costs of the rubric's criteria (DESIGN §4), all in one place.

The criteria (`graph_criteria`, `text_criteria`, `sendability`) read their numbers
from here and nowhere else. How the criteria combine into a total is not here:
that is fitted on readers' grades (`total.py`, `total.json`).
"""

from __future__ import annotations

# ============================ Grounding =====================================
# A cited node's coverage: the weighted share of its concepts (stemmed content
# words, synonyms merged, rarer concepts weigh more) that the body expresses.
GROUND_SUPPORT = 0.2  # at least this: the citation supports something in the body
GROUND_FULL = 0.45  # this much or more: full credit (a paraphrase reaches it)
GROUND_UNKNOWN_WEIGHT = 0.5  # an unknown citation counts half a cited node, at 0
# Copied text: share of body tokens inside a run of PASTE_N tokens copied from the
# graph. Up to PASTE_FREE is quoting; past it grounding loses up to PASTE_COST.
PASTE_FREE = 0.3
PASTE_COST = 0.8
CLAIM_COST = 0.25  # grounding lost per unsupported number, name or result

# ============================ Argument ======================================
CHAIN_INCOMPLETE_MAX = 0.5  # no supported path to a Product Feature: at most this
CHAIN_DEAD_END_HOPS = 3  # "hops still to go" from a node that cannot reach a feature
CHAIN_FEATURE_ONLY = 0.35  # the product is shown but nothing links it to the job
CHAIN_BRIDGE_COST = 0.12  # per uncited middle node the path had to skip
CHAIN_BRIDGE_MAX_SKIP = 2  # most uncited nodes skipped in a row
CHAIN_BRIDGE_FLOOR = 0.5
ORDER_FLOOR = 0.05  # steps told in the wrong order keep this share of the chain score
POSITION_SHARE = 1.0  # a step is told where a sentence first says this share of its best
UNSUPPORTED_CITATION_COST = 0.05  # argument lost per citation the body does not support
UNSUPPORTED_CITATION_MAX = 0.3

# ============================ Relevance =====================================
# Profile concepts weigh by source; a relevance of 1 needs REL_FULL of weight.
REL_NOTES = 1.0
REL_TITLE = 0.7
REL_ROLE = 0.45  # concepts a title implies (words.ROLE_CONCEPTS)
REL_TECH = 0.7
REL_INDUSTRY = 0.6
REL_FULL = 2.0  # profile weight the body must touch for full body fit
# The facts' fit: the share of the profile the graph can speak to (weighted by how
# telling each concept is in the graph) that the chosen facts cover; covering this
# share is full marks (no single chain covers everything).
REL_COVER_FULL = 0.75
REL_FACTS_SHARE = 0.7  # the chosen facts; the rest is the body speaking to the prospect
# The gate: an email about none of what the reader cares about keeps this share of
# its total; relevance 1 keeps all of it (linear between).

# ============================ Fit to the reader ==============================
# Who reads (codreamer.agent.reader: seniority and function from the title, a formal
# industry) sets how long, how formal and in which frame the email should be.
FIT_LENGTH = 0.45
FIT_REGISTER = 0.25
FIT_FRAME = 0.30
# Body words (zero at or below, ideal from, ideal to, zero at or above) by seniority:
# the more senior, the less they read.
FIT_WORDS_BAND = {
    "executive": (20, 50, 120, 200),
    "director": (20, 55, 130, 220),
    "manager": (25, 60, 140, 240),
    "individual": (30, 70, 150, 260),
}
FIT_REGISTER_MISMATCH = 0.35  # "Hi Sam," to a formal reader, "Dear Dr Lee," to a peer
FIT_REGISTER_NONE = 0.7  # no greeting that says either
# The frames each function (and an executive of any function) reads for, 0..1.
FIT_FRAME_PREFS = {
    "technical": {"how": 1.0, "risk": 0.4, "outcome": 0.3},
    "operations": {"risk": 1.0, "how": 0.6, "outcome": 0.5},
    "compliance": {"risk": 1.0, "how": 0.4, "outcome": 0.3},
    "finance": {"outcome": 1.0, "risk": 0.5, "how": 0.2},
    "commercial": {"outcome": 1.0, "risk": 0.4, "how": 0.3},
    "executive": {"outcome": 1.0, "risk": 0.6, "how": 0.2},
}
FIT_FRAME_NONE = 0.5  # no frame words at all

# ============================ Text criteria =================================
CTA_ASKED = 1.0  # a question (or a polite "let me know if...") that asks for the goal
CTA_IMPERATIVE = 0.8  # the goal requested without a question
CTA_STATED = 0.5  # the goal mentioned, not asked for
CTA_OTHER_QUESTION = 0.3
CTA_LABEL = 0.1  # only a "Goal: ..." label
CTA_GOAL_MATCH = 0.5  # share of the goal's concepts a sentence must carry

PERS_NAME = 0.45  # first name, or title + surname
PERS_COMPANY = 0.25
PERS_CONTEXT = 0.20  # the body speaks to the title, industry, stack or notes
PERS_SUBJECT = 0.10

# (zero at or below, ideal from, ideal to, zero at or above), linear between.
BODY_WORDS_BAND = (15, 50, 150, 300)
SUBJECT_WORDS_BAND = (0, 2, 9, 18)
CONCISION_BODY_SHARE = 0.8

SENTENCE_WORDS_BAND = (3, 8, 24, 45)
READ_SENTENCES = 0.35
READ_PROSE = 0.20
READ_PARAGRAPHS = 0.15
READ_GREETING = 0.15
READ_SIGNOFF = 0.15

# english: 0 at or below this function-word share (or the best foreign language's
# share, whichever is higher), 1 at this much above it.
ENGLISH_FLOOR = 0.05
ENGLISH_SPAN = 0.13

# ============================ Sendability costs =============================
# Each found item multiplies the total by (1 - cost); costs of one kind are capped.
COST_PLACEHOLDER = 0.5
# ...left only in the signature block ("[Phone] | [Email]"): a contact detail to fill
# in, which readers mark down a little, not an email that cannot go out (round 12's
# packet W: a placeholder in the body graded 1.3, one in the signature 3 to 4).
COST_SIGNATURE_PLACEHOLDER = 0.15
COST_GRAPH_META = 0.35  # node ids or talk about the graph in the prose
COST_REPEAT_NAME = 0.12  # per use of the name/company past NAME_USES_FREE
NAME_USES_FREE = 2  # greeting + one more; the company may appear twice too
COST_REPEAT_PHRASE = 0.1  # per phrase of 4+ words used 3+ times
COST_EXTRA_ASK = 0.12  # per ask past the first
COST_REPEAT_MAX = 0.6
COST_FRAGMENTS = 0.5  # times the share of fragment sentences past FRAGMENT_FREE
FRAGMENT_FREE = 0.2
FRAGMENT_WORDS = 3  # a sentence of at most this many words is a fragment
COST_INSULT = 0.4
COST_THREAT = 0.4
COST_PRESSURE = 0.2  # per pressure phrase
COST_HOSTILE_MAX = 0.7
COST_CREDENTIALS = 0.6
COST_AI_DISCLAIMER = 0.5
COST_FOREIGN_PARAGRAPH = 0.45
COST_THEIR_BUSINESS = 0.45  # the customer's own business pitched as our product
COST_CONFUSED = 0.5  # writes as the prospect, or to the sender
COST_WORD_SALAD = 0.6  # times the share of salad sentences
SALAD_FUNCTION_SHARE = 0.12  # a sentence of 8+ words with fewer function words is salad
COST_PADDING = 0.35  # long and mostly empty of facts, the prospect and the ask
PADDING_WORDS = 150
PADDING_EMPTY_SHARE = 0.45
COST_PADDING_PHRASE = 0.04
COST_WRONG_PRODUCT = 0.45  # pitches something, but not the graph's product
PRODUCT_SHOWN = 0.35  # a feature node's coverage that counts as showing the product
COST_NO_ASK = 0.2  # asks the reader for nothing
COST_IMPERSONAL = 0.15  # never names the reader
COST_PASTE = 0.3  # times how far the copied share passes PASTE_SENDABLE (to 100%)
PASTE_SENDABLE = 0.6
COST_TOO_LONG = 0.3  # reaches its full cost at TOO_LONG_WORDS + 150
TOO_LONG_WORDS = 200
COST_SHOUTING = 0.2  # ALL-CAPS words, "!!", spam phrases
COST_CLAIM = 0.15  # per unsupported number, named customer or result
COST_CLAIM_MAX = 0.5
