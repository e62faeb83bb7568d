"""Meaning for the rubric (DESIGN §4): sentence embeddings from a real model, offline.

WordLlama (MIT, numpy only) ships its 16 MB of weights and its tokenizer inside
the wheel, so the model loads from the installed package's own folder with the
download switched off; nothing is fetched at run time. Embeddings are L2
normalised, so a dot product is a cosine.

The model is loaded once per process, on first use (the judge's import stays
light for commands that never judge), and embeddings of texts the judge meets
again and again (node text, prospect profiles, the sentences a learning policy
repeats) are memoised.

Speed: WordLlama's embedding of a text is the mean of its tokens' vectors. Its own
`embed` runs the tokenizer over whole texts with padding, which is most of a
judgement's time. Its tokenizer is SentencePiece-style (every space becomes "▁",
one is prepended, and no token spans a "▁"), so a text's tokens are its
whitespace-separated words' tokens, each word encoded as if it began the text.
Here each word's token ids are cached, so a text costs a few dictionary lookups
and one mean; the result equals the model's own embedding for single-spaced text
(tests/judge/test_meaning.py checks it).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

_LOCK = threading.Lock()
_MODEL: Any = None
_MATRIX: np.ndarray | None = None
_CHUNK_IDS: dict[str, list[int]] = {}
_CHUNK_MAX = 500_000
_MEMO: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # text -> (unit, token sum)
_MEMO_MAX = 200_000
DIM = 256  # the model's Matryoshka dimension used here (its full width)


def _model() -> Any:
    global _MODEL
    if _MODEL is None:
        with _LOCK:
            if _MODEL is None:
                # Deferred: the tokenizer and weights cost ~0.1 s and 60 MB, paid only
                # by processes that judge.
                import os

                import wordllama
                from wordllama import WordLlama

                folder = os.path.dirname(wordllama.__file__)
                _MODEL = WordLlama.load(cache_dir=folder, disable_download=True, dim=DIM)
    return _MODEL


def _matrix() -> np.ndarray:
    global _MATRIX
    if _MATRIX is None:
        _MATRIX = np.ascontiguousarray(_model().embedding[:, :DIM], dtype=np.float32)
    return _MATRIX


def _fill_chunks(texts: list[str]) -> None:
    """Encode, in one batch, every word of these texts the cache has not seen."""
    cache = _CHUNK_IDS
    new = list({c: None for t in texts for c in t.split() if c not in cache})
    if not new:
        return
    if len(cache) + len(new) >= _CHUNK_MAX:
        cache.clear()
    # Word by word: `encode_batch` would start the tokenizer's thread pool, which
    # costs more CPU than a few dozen short words. The BPE model is asked directly,
    # with the "▁" the tokenizer's normaliser would prepend (a word from `split()`
    # holds no space for it to replace): a third of `encode`'s cost, which also builds
    # offsets and masks. A word that may hold one of the tokenizer's added tokens
    # ("<s>", "</s>", "<unk>", matched before the model) takes the full path.
    tok = _model().tokenizer
    bpe = tok.model.tokenize
    for chunk in new:
        if "<" in chunk:
            cache[chunk] = tok.encode(chunk, add_special_tokens=False).ids
        else:
            cache[chunk] = [t.id for t in bpe("\u2581" + chunk)]


def token_ids(text: str) -> list[int]:
    """The text's token ids, word by word from the cache."""
    _fill_chunks([text])
    cache = _CHUNK_IDS
    return [i for chunk in text.split() for i in cache[chunk]]


def _sums(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each text's sum of token vectors and its token count (no memo)."""
    _fill_chunks(texts)
    cache = _CHUNK_IDS
    seqs = [[i for chunk in t.split() for i in cache[chunk]] for t in texts]
    lens = np.array([len(q) for q in seqs])
    sums = np.zeros((len(texts), DIM), dtype=np.float32)
    flat = [t for q in seqs for t in q]
    if flat:
        # One gather and one segmented sum for all the texts: numpy's per-call cost,
        # not the arithmetic, is what a handful of short sentences spends.
        starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
        has = lens > 0
        sums[has] = np.add.reduceat(_matrix()[flat], starts[has], axis=0)
    return sums, lens


def _unit(vecs: np.ndarray) -> np.ndarray:
    norms = np.sqrt((vecs * vecs).sum(axis=1, keepdims=True))
    return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)


def _vectors(texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(unit vector, token-vector sum) of each text, memoised; a blank text gets
    zeros."""
    zero = (np.zeros(DIM, dtype=np.float32), np.zeros(DIM, dtype=np.float32))
    out: list[tuple[np.ndarray, np.ndarray]] = [zero] * len(texts)
    todo: list[int] = []
    for i, t in enumerate(texts):
        hit = _MEMO.get(t)
        if hit is not None:
            out[i] = hit
        elif t.strip():
            todo.append(i)
    if todo:
        if len(_MEMO) + len(todo) > _MEMO_MAX:
            _MEMO.clear()
        sums, lens = _sums([texts[i] for i in todo])
        means = np.zeros_like(sums)
        has = lens > 0
        means[has] = sums[has] / lens[has, None]
        units = _unit(means)
        for k, i in enumerate(todo):
            out[i] = _MEMO[texts[i]] = (units[k], sums[k])
    return out


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors, one row per text (a blank text gets a zero row)."""
    vecs = _vectors(texts)
    return np.array([u for u, _ in vecs], dtype=np.float32).reshape(len(texts), DIM)


def embed_parts(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of the texts, as `embed`, and their token-vector sums. The sum of
    some texts' sums, made a unit vector, is the embedding of those texts joined by
    spaces (the mean of every token), without reading any word twice."""
    vecs = _vectors(texts)
    units = np.array([u for u, _ in vecs], dtype=np.float32).reshape(len(texts), DIM)
    sums = np.array([s for _, s in vecs], dtype=np.float32).reshape(len(texts), DIM)
    return units, sums


def unit(vec: np.ndarray) -> np.ndarray:
    """The vector scaled to length 1 (zeros stay zeros)."""
    return _unit(vec.reshape(1, DIM))[0]


def top_mean(sims: np.ndarray, k: int = 2) -> float:
    """The mean of the k highest values (0 for none): how well the best part fits."""
    if sims.size == 0:
        return 0.0
    if sims.size <= k:
        return float(sims.mean())
    return float(np.sort(sims)[-k:].mean())
