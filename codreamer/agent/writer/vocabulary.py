"""What a graph's own text says about case (a word seen in lower case is common; one
only ever capitalised is a name), per graph and per email's people; and the
rationales a graph repeats (boilerplate, not a reason).

Pure and memoised: built once per graph, looked up per sentence.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from codreamer.agent.writer.grammar import wordset
from codreamer.agent.writer.plan import Plan
from codreamer.agent.writer.text import sentences

if TYPE_CHECKING:
    from codreamer.graph.store import GraphStore

_ALWAYS_LOWER = wordset(
    """
    a an the most many every each some any all no one two three several few without with
    during when while if once after before since because as in on at for from by to of
    there this these those it its you your our their
    """
)


def _common_shape(word: str) -> bool:
    """An adverb, a participle or a gerund is never a name ("Efficiently", "Rushed")."""
    return word.endswith(("ly", "ing", "ed")) and len(word) > 4


class Vocabulary:
    """What the graph's own text says about case: a word seen in lower case is a
    common word (safe to lower-case after a lead-in); one only ever capitalised is a
    name (kept as written, and never flagged by the check)."""

    def __init__(self, texts: list[str], names: list[str]) -> None:
        lower: set[str] = set()
        caps: set[str] = set()
        for t in texts:
            # not inside an address or a domain ("reviewly.io" is still Reviewly)
            words = re.findall(r"(?<![\w@./])[A-Za-z][\w'-]*(?![\w@]|\.\w)", t)
            lower.update(w for w in words if w[0].islower())
            for prev, w in zip(words, words[1:], strict=False):
                if w[0].isupper() and not prev.endswith((".", "!", "?", ":")):
                    caps.add(w.removesuffix("'s"))
        self.lower = frozenset(w.lower() for w in lower)
        self.caps = frozenset(caps)
        self._proper: dict[str, bool] = {}
        self._with_names: dict[tuple[str, ...], Vocabulary] = {}
        self.checked: dict[str, str] = {}  # sentence -> repaired, or "" when broken
        self.plans: dict[tuple[tuple[str, ...], int, str], Plan] = {}  # per graph
        self.names = frozenset(w for n in names for w in n.split() if w)

    def proper(self, word: str) -> bool:
        hit = self._proper.get(word)
        if hit is None:
            hit = self._proper[word] = self._is_proper(word)
        return hit

    def _is_proper(self, word: str) -> bool:
        w = word.strip(",.;:!?'\"()")
        if w.endswith(("'s", "’s")):
            w = w[:-2]
        if w in self.names or (len(w) > 1 and (w.isupper() or any(c.isupper() for c in w[1:]))):
            return True
        if w in self.caps:  # capitalised mid-sentence somewhere in the graph: a name
            return True
        low = w.lower()
        return not (low in self.lower or low in _ALWAYS_LOWER or _common_shape(low))

    def for_names(self, names: list[str]) -> Vocabulary:
        """This graph's vocabulary with the names of one email's people and companies
        (memoised: a run writes to the same few prospects over and over)."""
        key = tuple(names)
        hit = self._with_names.get(key)
        if hit is None:
            if len(self._with_names) >= 1024:
                self._with_names.clear()
            hit = Vocabulary([], names)
            hit.lower, hit.caps = self.lower, self.caps
            self._with_names[key] = hit
        return hit

    def lowered(self, sentence: str) -> str:
        """The sentence with its first word in lower case, or "" when it is a name."""
        first = sentence.split(" ", 1)[0]
        if not first or self.proper(first):
            return ""
        return sentence[0].lower() + sentence[1:]


@lru_cache(maxsize=4096)
def notes_caps(notes: str) -> frozenset[str]:
    """Words the notes capitalise mid-sentence: names ("Main Street", "Millbrook")."""
    return Vocabulary(sentences(notes), []).caps  # a sentence's first word is not a name


_GRAPH_CACHE: dict[int, tuple[GraphStore, Vocabulary, frozenset[str]]] = {}


def graph_facts(store: GraphStore) -> tuple[Vocabulary, frozenset[str]]:
    """Per graph, once: its vocabulary, and the rationales it repeats on three or more
    edges (boilerplate such as "the next problem follows", not a reason)."""
    hit = _GRAPH_CACHE.get(id(store))
    if hit is not None and hit[0] is store:
        return hit[1], hit[2]
    texts: list[str] = []
    counts: dict[str, int] = {}
    for nid, node in store.nodes.items():
        texts.append(node.content)
        for nb in store.out_neighbours(nid):
            r = nb.rationale.strip()
            texts.append(r)
            counts[r] = counts.get(r, 0) + 1
    vocab = Vocabulary(texts, [])
    repeated = frozenset(r for r, c in counts.items() if c >= 3)
    if len(_GRAPH_CACHE) > 64:
        _GRAPH_CACHE.clear()
    _GRAPH_CACHE[id(store)] = (store, vocab, repeated)
    return vocab, repeated
