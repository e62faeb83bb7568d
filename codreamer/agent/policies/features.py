"""What the embedded policy sees: prospect features, node features, the record of a choice.

Relevance is general, not learned per graph or per prospect: a node's text is
matched against each thing known about the prospect (notes, title, industry,
tech stack) by shared word stems, giving one feature per field. What the policy
learns is how much each field's match is worth, so it carries over to graphs
and prospects it has never seen: a prospect whose notes talk about audits is
walked toward the audit facts of whatever graph it meets.

Node choice (walk): candidate features NODE_FEATURES, a linear logit. Besides
the candidate's own match with each field ("rel_*"), "ahead_*" is the best
match of any node still reachable from it on the way to a Product Feature
within the hops left, so the first step already heads for the relevant part
of the graph. FINISH is scored on FINISH_FEATURES of the current position.

Style choices (angle, register, length, ask, subject): the logit of option k
of a head is W_head[k] . psi, where psi (STYLE_CONTEXT) holds the prospect's
seniority and function (from the title), whether there are notes and a stack,
and the walk's length: "linear in option x prospect features".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from codreamer.agent.policies.meaning import embed
from codreamer.agent.reader import FUNCTIONS, SENIORITY, reader
from codreamer.agent.style import STYLE_CHOICES, EmailStyle
from codreamer.agent.writer import names_company, tellable, write_email
from codreamer.graph.memo import per_graph
from codreamer.graph.schema import is_product_feature
from codreamer.graph.store import GraphStore
from codreamer.models import FinalEmail, Scenario, Sender

FIELDS = ("notes", "title", "industry", "stack")
# Matches of a node with the prospect: by shared word stems, one per field, and by
# meaning ("meaning": the node's text against what is known of the prospect, with
# the sentence embeddings the judge reads relevance with). Stems tie whenever two
# candidates share no word with the prospect, which is most of a graph for most
# readers; meaning tells every node apart, so what the best email of a run chose
# among such candidates can be learned (by that prospect's own weights: below).
REL_KINDS = (*FIELDS, "meaning")
# Node features only a prospect's own weights use (EmbeddedPolicy.personal): the
# shared weights keep them at zero. None since round 7: meaning was own-only while
# the judge barely weighed which feature fits (in the shared weights it had lowered
# held-out greedy on a 60-node topical graph, 0.86 -> 0.81); once the judge reads
# the fit through the problem a feature answers, a policy without meaning in its
# shared weights could not follow it to prospects it never trained on (an agent's
# held-out leads, bench_agents.py: 0.92 of the oracle without, 0.99 with).
OWN_ONLY_FEATURES: tuple[str, ...] = ()
# No node-score input: a run's node scores say how well emails citing a node did
# for every prospect so far, a popularity that pulls each prospect toward the nodes
# that suited the others (8 seeds: held-out learned/oracle 0.969 -> 0.975 without
# it, and no seed under 0.95). What to walk toward is the prospect's own match.
NODE_FEATURES = (
    "progress",
    "is_feature",
    "reaches_feature",
    "confidence",
    # Whether the writer can tell the node (writer.tellable). A node it cannot tell
    # (a bare noun phrase, a note for the graph's author) has its matches at zero:
    # walking to it for its words only cites a fact the body never says.
    "tellable",
    *(f"rel_{f}" for f in REL_KINDS),
    *(f"ahead_{f}" for f in REL_KINDS),
    # is_feature x the reader's seniority: a senior reader wants the short argument
    # (the judge's `fit` wants fewer words for them), so how soon to reach the
    # product depends on who reads. Last: filled per decision.
    "feature_senior",
)
# Node features whose shared weight is kept >= 0 (projected after each update, as
# the judge's fitted total keeps its weights): a node the writer can tell, matching
# the reader's notes or meaning more (or leading to one that does), never lowers its
# logit for a reader the policy has not trained on. Trained on four prospects, the
# shared weights otherwise took either sign from seed to seed (ahead_notes from
# -2.3 to +1.5 on synthetic-16) and sent held-out readers away from their own facts
# on the seeds where they came out negative. Title, industry and stack matches stay
# free: a title word can be the graph's own vocabulary. A prospect's own weights
# are not constrained.
MONOTONE_FEATURES = ("tellable", "rel_notes", "rel_meaning", "ahead_notes", "ahead_meaning")
FINISH_FEATURES = ("bias", "at_feature", "hops_fraction", "can_reach_feature")
STYLE_CONTEXT = (
    "bias",
    *SENIORITY,
    *FUNCTIONS,
    "has_notes",
    "has_stack",
    "formal_industry",
    # The register convention (reader.formal): a formal industry or a non-technical
    # executive is written to formally, technical people and managers as peers.
    # Seniority and industry imply it only jointly, which four training prospects
    # cannot pin down for a linear head ("finance" learned from a CFO would make a
    # FinOps manager formal too).
    "expects_formal",
    "expects_peer",
    # What this reader's notes speak of, per angle: the walk follows the notes by
    # matching node text; these let the style heads follow them too, so two readers
    # with the same title but different worries can be written to differently.
    *(f"notes_{a}" for a in ("risk", "outcome", "how")),
    "walk_hops",  # last: filled per walk
)
STYLE_HEADS = STYLE_CHOICES  # (head, number of options)
EMAIL_CACHE_SIZE = 50_000  # bound of each memo here; cleared when full

N_REL = len(REL_KINDS)
PROGRESS = NODE_FEATURES.index("progress")
IS_FEATURE = NODE_FEATURES.index("is_feature")
REACHES = NODE_FEATURES.index("reaches_feature")
CONFIDENCE = NODE_FEATURES.index("confidence")
TELLABLE = NODE_FEATURES.index("tellable")
_REL0 = NODE_FEATURES.index("rel_notes")
AHEAD0 = NODE_FEATURES.index("ahead_notes")
# Shared stems for full credit of one field's match (notes are long: two).
_FULL_MATCH = {"notes": 2.0, "title": 1.0, "industry": 1.0, "stack": 1.0}
# A node covering this share of a field's telling weight (what the graph can speak
# to) matches it fully: no one fact covers all of a prospect's notes.
_COVER_FULL = 0.5
# idf (log(1 + N/df)) of a stem in half the graph's nodes: below it (a stem in more
# than half), a stem is the graph's own vocabulary rather than a match with one part.
_COMMON_IDF = float(np.log1p(2.0))

_WORD = re.compile(r"[a-z][a-z0-9+#]{2,}")
# Words too common to say anything about relevance.
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "your",
        "their",
        "our",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "not",
        "but",
        "can",
        "will",
        "its",
        "his",
        "her",
        "they",
        "them",
        "you",
        "who",
        "what",
        "when",
        "where",
        "which",
        "how",
        "all",
        "any",
        "more",
        "most",
        "such",
        "than",
        "then",
        "there",
        "these",
        "those",
        "about",
        "over",
        "under",
        "also",
        "just",
        "very",
        "each",
        "other",
        "been",
        "being",
        "does",
        "did",
        "doing",
        "out",
        "off",
        "new",
        "one",
        "two",
        "three",
        "many",
        "much",
        "some",
        "only",
        "own",
        "same",
        "should",
        "could",
        "would",
        "may",
        "might",
        "must",
        "per",
        "via",
        "across",
        "among",
        "within",
        "without",
        "while",
        "after",
        "before",
        "since",
        "because",
        "team",
        "teams",
        "company",
        "companies",
        "business",
        "businesses",
        "work",
        "works",
        "working",
        "head",
        "vice",
        "president",
        "senior",
        "junior",
        "lead",
        "chief",
        "officer",
        "manager",
        "director",
        "last",
        "quarter",
        "year",
        "years",
        "week",
        "weeks",
        "month",
        "months",
        "recent",
        "recently",
        "next",
    ]
)
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "ly", "s")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix-stripping stem: 'audits', 'audited', 'auditing' -> 'audit'."""
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 4:
            base = word[: -len(suf)]
            return base + "y" if suf in ("ies", "ied") else base
    return word


@lru_cache(maxsize=65536)
def stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP)


def tokens(text: str) -> frozenset[str]:
    """Content-word stems of a text (kept under its old name for callers)."""
    return stems(text)


# Words (stemmed like node text) by what a reader who writes them reads for: what
# goes wrong, what changes in the numbers, how it works. Deliberately generic: they
# describe readers, not any graph.
_ANGLE_WORDS = {
    "risk": "fail failure failures risk risks loss losses lose recall recalls breach incident "
    "incidents audit audits compliance complaint complaints penalty fines claim claims spoil "
    "spoilage excursion excursions downtime outage outages problem problems issue issues delay "
    "delays unstable instability error errors bug bugs leak safety liability violation",
    "outcome": "cost costs margin margins revenue profit profits saving savings save budget "
    "budgets roi growth return returns price pricing spend spending efficiency reduce target "
    "targets kpi forecast waste write-off write-offs payback cash value",
    "how": "integrate integration api apis data pipeline pipelines sensor sensors system "
    "systems architecture platform stack model models training code deploy deployment "
    "automation automate tool tools workflow telemetry monitor monitoring engineering sdk",
}
_NOTES_FULL = 2.0  # shared stems for a full match of an angle


@lru_cache(maxsize=4)
def _angle_stems() -> dict[str, frozenset[str]]:
    return {a: stems(words) for a, words in _ANGLE_WORDS.items()}


def prospect_context(scenario: Scenario) -> np.ndarray:
    """psi without the walk: bias, one-hot seniority, function flags, notes/stack present,
    a formal industry, the register expected (the reader as `codreamer.agent.reader`
    sees them)."""
    p = scenario.prospect
    who = reader(p.title, p.industry)
    psi = np.zeros(len(STYLE_CONTEXT))
    psi[0] = 1.0
    psi[STYLE_CONTEXT.index(who.seniority or "manager")] = 1.0
    for name in who.functions:
        psi[STYLE_CONTEXT.index(name)] = 1.0
    psi[STYLE_CONTEXT.index("has_notes")] = (
        1.0 if (getattr(p, "notes", None) or "").strip() else 0.0
    )
    psi[STYLE_CONTEXT.index("has_stack")] = 1.0 if p.tech_stack else 0.0
    psi[STYLE_CONTEXT.index("formal_industry")] = 1.0 if who.formal_industry else 0.0
    psi[STYLE_CONTEXT.index("expects_formal")] = 1.0 if who.formal is True else 0.0
    psi[STYLE_CONTEXT.index("expects_peer")] = 1.0 if who.formal is False else 0.0
    notes = stems(getattr(p, "notes", None) or "")
    for angle, words in _angle_stems().items():
        psi[STYLE_CONTEXT.index(f"notes_{angle}")] = min(1.0, len(notes & words) / _NOTES_FULL)
    return psi


def node_stems(store: GraphStore, node_id: str) -> frozenset[str]:
    node = store.node(node_id)
    return stems(node.content + " " + node_id.replace("-", " "))


@per_graph
def node_vectors(store: GraphStore) -> np.ndarray:
    """Unit embeddings of every node's text, rows in `store.nodes` order (memoised per store)."""
    return embed([store.node(n).content for n in store.nodes])


def profile_text(scenario: Scenario) -> str:
    """What is known of the prospect, as text: the notes, else title, industry and stack."""
    p = scenario.prospect
    notes = (getattr(p, "notes", None) or "").strip()
    if notes:
        return notes
    return " ".join(x for x in (p.title or "", p.industry or "", " ".join(p.tech_stack)) if x)


def meaning_matches(store: GraphStore, scenario: Scenario) -> dict[str, float]:
    """Each node's cosine with the prospect, on the graph's own scale: 1 for the
    graph's closest node, 0 for its median one, negative below (down to -1); the
    scale the judge's relevance uses, so it means the same on every graph. All
    zeros when nothing is known of the prospect."""
    text = profile_text(scenario)
    ids = list(store.nodes)
    if not text or not ids:
        return dict.fromkeys(ids, 0.0)
    sims = node_vectors(store) @ embed([text])[0]
    hi, lo = float(sims.max()), float(np.median(sims))
    span = max(hi - lo, 0.05)
    scaled = np.clip((sims - lo) / span, -1.0, 1.0)
    return {n: float(v) for n, v in zip(ids, scaled, strict=True)}


@per_graph
def graph_idf(store: GraphStore) -> dict[str, float]:
    """log(1 + N / df) of every stem in the graph's nodes (memoised per store)."""
    df: dict[str, int] = {}
    ids = list(store.nodes)
    for nid in ids:
        for w in node_stems(store, nid):
            df[w] = df.get(w, 0) + 1
    n = max(1, len(ids))
    return {w: float(np.log1p(n / c)) for w, c in df.items()}


@dataclass(slots=True)
class Decision:
    """One choice, with what is needed to re-score it under new parameters."""

    head: str  # "node" or a style head name
    chosen: int
    logprob: float
    key: Any = None  # identifies the inputs, for the sampling-time logits memo
    cand: np.ndarray | None = None  # node indices of the candidates (node head)
    x: np.ndarray | None = None  # candidate features (k, F) for "node"; psi (P,) for a style
    psi: np.ndarray | None = None  # FINISH features, (G,)
    own: str | None = (
        None  # scenario id whose own weights add to the shared ones (None: shared only)
    )


class ScenarioFeatures:
    """Per-scenario caches: field matches of every node, look-ahead, composed emails."""

    def __init__(self, store: GraphStore, scenario: Scenario, sender: Sender | None = None) -> None:
        self.store = store
        self.scenario = scenario
        self.sender = sender
        p = scenario.prospect
        self.fields = {
            "notes": stems(getattr(p, "notes", None) or ""),
            "title": stems(p.title or ""),
            "industry": stems(p.industry or ""),
            "stack": stems(" ".join(p.tech_stack)),
        }
        self.context = prospect_context(scenario)
        self.meaning = meaning_matches(store, scenario)
        self.senior = reader(p.title, p.industry).senior
        self.company = p.company or ""
        self._style_ctx: dict[int, np.ndarray] = {}
        self._rel: dict[str, np.ndarray] = {}
        self._ahead: dict[tuple[str, int], np.ndarray] = {}
        self._static: dict[str, np.ndarray] = {}
        # write_email is pure; a run writes the same (path, style) email many
        # times, so each is rendered once. Bounded: cleared when it grows large.
        self._emails: dict[tuple[tuple[str, ...], EmailStyle], tuple[FinalEmail, str]] = {}
        # Node-choice inputs for (node, candidates, hops, scores version).
        self.decisions: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    # -- relevance -------------------------------------------------------------
    def told(self, node_id: str) -> bool:
        """Whether the writer can tell the node to this reader: it can tell it
        (writer.tellable) and it does not name the reader's own company, which the
        writer never tells them (their own business)."""
        if not tellable(self.store, node_id):
            return False
        return is_product_feature(node_id) or not names_company(
            self.store.content(node_id), self.company
        )

    def rel(self, node_id: str) -> np.ndarray:
        """Match of the node's text with each prospect field, in [0, 1]: the share of
        the field's stems the graph speaks to that this node says, each stem weighted
        by how telling it is in this graph (rarer: more), so two nodes that both touch
        the notes are told apart by which part of the notes they touch."""
        r = self._rel.get(node_id)
        if r is None and not self.told(node_id):
            # A node the writer cannot tell (a bare noun phrase, a note for the
            # graph's author, the reader's own work or company) puts nothing of its match in
            # the email: walking to it for its words would cite a fact the body
            # never says. What lies beyond it still counts (`ahead`).
            r = self._rel[node_id] = np.zeros(N_REL)
        if r is None:
            words = node_stems(self.store, node_id)
            idf = graph_idf(self.store)
            out = []
            for f in FIELDS:
                # Only stems that tell nodes apart: one in most of the graph's nodes
                # ("data" in a graph about data) matches nearly every candidate alike.
                field = frozenset(w for w in self.fields[f] if idf.get(w, 0.0) >= _COMMON_IDF)
                shared = words & field
                if not shared:
                    out.append(0.0)
                    continue
                # Sorted: a set's order follows the process's string hashing, and a
                # float sum in another order differs in the last bit (runs must be
                # byte-identical across processes).
                total = sum(idf.get(w, 0.0) for w in sorted(field))
                got = sum(idf[w] for w in sorted(shared))
                by_share = got / (_COVER_FULL * total) if total else 0.0
                # Short fields (a title, an industry) keep the plain count.
                by_count = len(shared) / _FULL_MATCH[f]
                out.append(min(1.0, by_share if f == "notes" else max(by_share, by_count)))
            out.append(self.meaning[node_id])
            r = np.array(out)
            self._rel[node_id] = r
        return r

    def ahead(self, node_id: str, hops_left: int) -> np.ndarray:
        """Best match per field of any node after `node_id` on a walk that still
        reaches a Product Feature within `hops_left` hops (zeros when none)."""
        key = (node_id, hops_left)
        a = self._ahead.get(key)
        if a is None:
            a = np.zeros(N_REL)
            if hops_left > 0 and not is_product_feature(node_id):
                for nb in self.store.out_neighbours(node_id):
                    h = self.store.hops_to_feature(nb.id)
                    if h is None or h > hops_left - 1:
                        continue
                    a = np.maximum(a, np.maximum(self.rel(nb.id), self.ahead(nb.id, hops_left - 1)))
            self._ahead[key] = a
        return a

    def static(self, node_id: str) -> np.ndarray:
        """Features that do not depend on where the walk is (progress,
        reachability and look-ahead are filled per decision)."""
        f = self._static.get(node_id)
        if f is None:
            node = self.store.node(node_id)
            conf = 0.0
            if node.verification is not None:
                v = node.verification
                conf = v.confidence if v.confidence is not None else (1.0 if v.verified else 0.0)
            f = np.zeros(len(NODE_FEATURES))
            f[IS_FEATURE] = 1.0 if is_product_feature(node_id) else 0.0
            f[CONFIDENCE] = conf
            f[TELLABLE] = 1.0 if self.told(node_id) else 0.0
            f[_REL0 : _REL0 + N_REL] = self.rel(node_id)
            self._static[node_id] = f
        return f

    def style_context(self, hops: int) -> np.ndarray:
        """psi for the style heads: the prospect's context plus the walk's length."""
        c = self._style_ctx.get(hops)
        if c is None:
            c = self.context.copy()
            c[-1] = min(1.0, hops / 5.0)
            self._style_ctx[hops] = c
        return c

    # -- emails -------------------------------------------------------------------
    def _composed(self, path: list[str], style: EmailStyle) -> tuple[FinalEmail, str]:
        key = (tuple(path), style)
        hit = self._emails.get(key)
        if hit is None:
            if len(self._emails) >= EMAIL_CACHE_SIZE:
                self._emails.clear()
            email = write_email(self.store, path, self.scenario, style, self.sender)
            hit = self._emails[key] = (email, json.dumps(email.model_dump(), ensure_ascii=False))
        return hit

    def compose(self, path: list[str], style: EmailStyle) -> FinalEmail:
        return self._composed(path, style)[0].model_copy()

    def finalize_arguments(self, path: list[str], style: EmailStyle) -> str:
        """The finalize_email call's JSON arguments, rendered once with the email."""
        return self._composed(path, style)[1]
