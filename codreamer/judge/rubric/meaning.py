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

from itertools import chain
from typing import Any

import numpy as np

from codreamer.agent.policies.meaning import DIM  # the model's Matryoshka width
from codreamer.agent.policies.meaning import model as wordllama_model

_MATRIX: np.ndarray | None = None
_CHUNK_IDS: dict[str, list[int]] = {}
_CHUNK_MAX = 500_000
_MEMO: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # text -> (unit, token sum)
_MEMO_MAX = 200_000


def _model() -> Any:
    # One model per process, shared with the policy's features: the tokenizer and
    # weights cost ~0.1 s and 60 MB, paid only by processes that judge or embed.
    return wordllama_model()


def _matrix() -> np.ndarray:
    global _MATRIX
    if _MATRIX is None:
        _MATRIX = np.ascontiguousarray(_model().embedding[:, :DIM], dtype=np.float32)
    return _MATRIX


def _fill_chunks(texts: list[str]) -> None:
    """Encode, in one batch, every word of these texts the cache has not seen."""
    _fill_words([t.split() for t in texts])


def _fill_words(words: list[list[str]]) -> None:
    """`_fill_chunks` of texts already split into words."""
    cache = _CHUNK_IDS
    new = list({c: None for ws in words for c in ws if c not in cache})
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
    words = [t.split() for t in texts]  # each text split once
    _fill_words(words)
    ids_of = _CHUNK_IDS.__getitem__
    flat: list[int] = []
    starts: list[int] = []
    counts: list[int] = []
    for ws in words:
        start = len(flat)
        starts.append(start)
        flat.extend(chain.from_iterable(map(ids_of, ws)))
        counts.append(len(flat) - start)
    lens = np.array(counts, dtype=np.int64)  # np.diff of the starts, without its cost
    if not flat:
        return np.zeros((len(texts), DIM), dtype=np.float32), lens
    # One gather and one segmented sum for all the texts: numpy's per-call cost, not
    # the arithmetic, is what a handful of short sentences spends.
    rows = _matrix().take(flat, 0)  # the rows of `[flat]`, from the list a third faster
    if min(counts) > 0:  # every text has tokens (a non-blank one always has)
        return np.add.reduceat(rows, starts, axis=0), lens
    sums = np.zeros((len(texts), DIM), dtype=np.float32)
    has = lens > 0
    sums[has] = np.add.reduceat(rows, np.array(starts)[has], axis=0)
    return sums, lens


def _unit(vecs: np.ndarray) -> np.ndarray:
    norms = np.sqrt((vecs * vecs).sum(axis=1, keepdims=True))
    if (norms > 0).all():  # the usual case: the same division, without the masks
        return vecs / norms
    return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)


def _zero() -> np.ndarray:
    z = np.zeros(DIM, dtype=np.float32)
    z.flags.writeable = False  # shared by every blank text
    return z


_ZERO = (_zero(), _zero())


def _vectors(texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(unit vector, token-vector sum) of each text, memoised; a blank text gets
    zeros."""
    return _batch(texts)[0]


def _batch(
    texts: list[str],
) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray | None, np.ndarray | None]:
    """`_vectors`, and when every text was new (embedded here, in this order, as an
    email's new sentences are) the unit vectors and sums as the arrays they were
    computed in, read-only since the memo holds their rows; else None, None."""
    out: list[tuple[np.ndarray, np.ndarray]] = [_ZERO] * len(texts)
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
        if lens.min() > 0:  # no masks needed (the same division, cast the same way)
            means = (sums / lens[:, None]).astype(np.float32)
        else:
            means = np.zeros_like(sums)
            has = lens > 0
            means[has] = sums[has] / lens[has, None]
        units = _unit(means)
        units.flags.writeable = False
        sums.flags.writeable = False
        for k, i in enumerate(todo):
            out[i] = _MEMO[texts[i]] = (units[k], sums[k])
        if len(todo) == len(texts):
            return out, units, sums
    return out, None, None


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors, one row per text (a blank text gets a zero row)."""
    vecs = _vectors(texts)
    return np.array([u for u, _ in vecs], dtype=np.float32).reshape(len(texts), DIM)


def embed_parts(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of the texts, as `embed`, and their token-vector sums. The sum of
    some texts' sums, made a unit vector, is the embedding of those texts joined by
    spaces (the mean of every token), without reading any word twice."""
    vecs, units, sums = _batch(texts)
    if units is None or sums is None:  # some were memoised or blank: gather the rows
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
    top = np.sort(sims)[-k:]
    if k != 2:
        return float(top.mean())
    # Two (relevance's k): `mean` without its argument handling, which costs more than
    # the sort. It sums in float32 and halves in float64 before casting back; the half
    # is exact in float64, so the cast rounds it as a float32 division does.
    return float(np.add.reduce(top) / np.float32(2))
