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
_MEMO: dict[str, np.ndarray] = {}
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


def token_ids(text: str) -> list[int]:
    """The text's token ids, chunk by chunk from the cache."""
    ids: list[int] = []
    cache = _CHUNK_IDS
    tok = None
    for chunk in text.split():
        hit = cache.get(chunk)
        if hit is None:
            if tok is None:
                tok = _model().tokenizer
            hit = tok.encode(chunk, add_special_tokens=False).ids
            if len(cache) >= _CHUNK_MAX:
                cache.clear()
            cache[chunk] = hit
        ids.extend(hit)
    return ids


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors, one row per text (a blank text gets a zero row)."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
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
        # One gather and one segmented sum for all the texts: numpy's per-call cost,
        # not the arithmetic, is what a handful of short sentences spends.
        seqs = [token_ids(texts[i]) for i in todo]
        lens = np.array([len(q) for q in seqs])
        flat = [t for q in seqs for t in q]
        if flat:
            m = _matrix()
            starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
            has = lens > 0
            sums = np.add.reduceat(m[flat], starts[has], axis=0)
            vecs = np.zeros((len(todo), DIM), dtype=np.float32)
            vecs[has] = sums / lens[has, None]
            norms = np.sqrt((vecs * vecs).sum(axis=1, keepdims=True))
            vecs = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
        else:
            vecs = np.zeros((len(todo), DIM), dtype=np.float32)
        for i, v in zip(todo, vecs, strict=True):
            out[i] = v
            _MEMO[texts[i]] = v
    return out


def top_mean(sims: np.ndarray, k: int = 2) -> float:
    """The mean of the k highest values (0 for none): how well the best part fits."""
    if sims.size == 0:
        return 0.0
    if sims.size <= k:
        return float(sims.mean())
    return float(np.sort(sims)[-k:].mean())
