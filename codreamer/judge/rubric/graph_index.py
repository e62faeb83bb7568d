"""What the rubric precomputes once per graph: node concepts and weights, copied-text
n-grams, product names, and how a loosely written citation maps to a node.

Built lazily by `RubricJudge` and then only read, so judging stays fast.
"""

from __future__ import annotations

import math
import re
from itertools import compress
from typing import TYPE_CHECKING

from codreamer.graph.schema import is_product_feature
from codreamer.judge.rubric.bands import CHAIN_BRIDGE_MAX_SKIP
from codreamer.judge.rubric.language import TOKEN, concept, concepts
from codreamer.judge.rubric.words import EN_FUNCTION_WORDS
from codreamer.models import CUSTOMER_JOB

if TYPE_CHECKING:
    from codreamer.graph.store import GraphStore

PASTE_N = 6  # a run of this many tokens shared with a node's text counts as copied
_HASH_SUFFIX = re.compile(r"[-_][0-9a-f]{6,}$")
_NUMBER = re.compile(r"\d[\d,.]*")
_CAPITAL = re.compile(r"\b[A-Z][A-Za-z&]+")


def _id_words(node_id: str) -> str:
    return _HASH_SUFFIX.sub("", node_id).replace("-", " ").replace("_", " ").replace(":", " ")


def ngrams(tokens: list[str], n: int = PASTE_N) -> set[tuple[str, ...]]:
    return set(zip(*(tokens[i:] for i in range(n)), strict=False))


class GraphIndex:
    def __init__(self, store: GraphStore) -> None:
        self.store = store
        ids = list(store.nodes)
        self.ids = ids
        self.features = [i for i in ids if is_product_feature(i)]
        self.feature_set = frozenset(self.features)
        self.content: dict[str, frozenset[str]] = {i: concepts(store.content(i)) for i in ids}
        # Relevance reads a node's content, its id and why the graph links to it.
        incoming: dict[str, list[str]] = {i: [] for i in ids}
        for i in ids:
            for nb in store.out_neighbours(i):
                incoming[nb.id].append(f"{nb.relationship} {nb.rationale}")
        self.context: dict[str, frozenset[str]] = {
            i: self.content[i] | concepts(_id_words(i) + " " + " ".join(incoming[i])) for i in ids
        }
        # Relevance: how telling each context concept is (rarer across nodes: more).
        cdf: dict[str, int] = {}
        for i, cs in self.context.items():
            if i != CUSTOMER_JOB:
                for c in cs:
                    cdf[c] = cdf.get(c, 0) + 1
        m = max(1, len(ids) - 1)
        self.context_weight = {c: 1.0 + math.log(m / d) for c, d in cdf.items()}
        # Concepts that many nodes share weigh less (inverse document frequency).
        df: dict[str, int] = {}
        for cs in self.content.values():
            for c in cs:
                df[c] = df.get(c, 0) + 1
        n = max(1, len(ids))
        self.weight = {c: 1.0 + math.log(n / d) for c, d in df.items()}
        # Sums of weights run over sorted concepts: a set's order follows the process's
        # string hashing, and floats added in another order can differ in the last bit,
        # enough to tip a threshold (a run's scores must not depend on the process).
        self.total = {i: sum(self.weight[c] for c in sorted(cs)) for i, cs in self.content.items()}
        # Each node's concepts, sorted, and their weights (summed in that order).
        self.weighted = {
            i: (tuple(sorted(cs)), tuple(self.weight[c] for c in sorted(cs)))
            for i, cs in self.content.items()
        }
        text = " ".join(store.content(i) for i in ids)
        self.ngrams: set[tuple[str, ...]] = set()
        for i in ids:
            self.ngrams |= ngrams(TOKEN.findall(store.content(i).lower()))
        rationales = " ".join(" ".join(v) for v in incoming.values())
        self.vocab = frozenset(TOKEN.findall(f"{text} {rationales} {' '.join(ids)}".lower()))
        # a figure that ends a sentence ("instead of 200.") is the figure, not "200."
        self.numbers = frozenset(m.replace(",", "").rstrip(".") for m in _NUMBER.findall(text))
        # The product's names: capitalised words of the feature nodes that are not
        # ordinary words anywhere else ("Frostline", "Weave").
        feature_text = " ".join(store.content(i) for i in self.features)
        self.product_names = frozenset(
            w.lower()
            for w in _CAPITAL.findall(feature_text)
            if w.lower() not in EN_FUNCTION_WORDS and len(w) > 2
        )
        self.feature_concepts = frozenset().union(*(self.content[i] for i in self.features))
        self.customer_job = self.content.get(CUSTOMER_JOB, frozenset())
        self.customer_job_only = self.customer_job - self.feature_concepts  # not the product's
        self._resolved: dict[str, str | None] = {}
        self._near: dict[str, list[tuple[str, int]]] = {}
        self._id_concepts = {i: concepts(_id_words(i)) for i in ids}

    def near(self, node_id: str) -> list[tuple[str, int]]:
        """Nodes within 1 + CHAIN_BRIDGE_MAX_SKIP hops of `node_id`, nearest first, each
        with the number of nodes between (computed once per node)."""
        hit = self._near.get(node_id)
        if hit is None:
            hit = []
            seen = {node_id}
            frontier = [node_id]
            for between in range(CHAIN_BRIDGE_MAX_SKIP + 1):
                nxt = []
                for cur in frontier:
                    for nb in self.store.out_neighbours(cur):
                        if nb.id not in seen:
                            seen.add(nb.id)
                            hit.append((nb.id, between))
                            nxt.append(nb.id)
                frontier = nxt
            self._near[node_id] = hit
        return hit

    def coverage(self, node_id: str, found: set[str] | frozenset[str]) -> float:
        """Weighted share of a node's concepts that `found` contains."""
        total = self.total.get(node_id, 0.0)
        if not total:
            return 0.0
        cs, ws = self.weighted[node_id]
        return sum(compress(ws, map(found.__contains__, cs))) / total

    def resolve(self, citation: str) -> str | None:
        """The node a citation names: exactly, or by its words when an LLM wrote the id
        loosely ("customer_job", "Quality Validation"); None when nothing fits one node."""
        if citation in self.store:
            return citation
        hit = self._resolved.get(citation, "")
        if hit != "":
            return hit
        want = concepts(_id_words(citation))
        best: str | None = None
        best_score = 0.0
        tie = False
        if want:
            for i, have in self._id_concepts.items():
                if not have:
                    continue
                inter = len(want & have)
                if not inter:
                    continue
                score = inter / len(want | have)
                if inter == len(want) or inter == len(have):
                    score = max(score, 0.6)
                if score > best_score + 1e-9:
                    best, best_score, tie = i, score, False
                elif abs(score - best_score) <= 1e-9:
                    tie = True
        out = best if best is not None and best_score >= 0.5 and not tie else None
        if len(self._resolved) > 4096:
            self._resolved.clear()
        self._resolved[citation] = out
        return out

    def known_word(self, word: str) -> bool:
        return word.lower() in self.vocab or concept(word.lower()) is None
