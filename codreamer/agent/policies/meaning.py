"""Meaning for the embedded policy's features: the same sentence embeddings the
rubric judges relevance with (WordLlama, DESIGN §4), loaded offline from the
wheel's own folder.

The agent layer sits below the judge (tests/layers), so this loads the model
itself rather than importing the judge's loader; a process that also judges
holds the 16 MB of weights twice. Texts are embedded with single spaces, the
form in which the judge's cached tokenisation equals the model's own, so the
policy and the judge see the same vectors.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

_LOCK = threading.Lock()
_MODEL: Any = None
DIM = 256


def model() -> Any:
    """The WordLlama model, loaded once per process from its own wheel (no network);
    the judge's meaning module shares it."""
    global _MODEL
    if _MODEL is None:
        with _LOCK:
            if _MODEL is None:
                # Deferred: paid only by processes that build the policy's features.
                import os

                import wordllama
                from wordllama import WordLlama

                folder = os.path.dirname(wordllama.__file__)
                _MODEL = WordLlama.load(cache_dir=folder, disable_download=True, dim=DIM)
    return _MODEL


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors (float64), one row per text; a blank text gets a zero row."""
    clean = [" ".join(t.split()) for t in texts]
    out = np.zeros((len(clean), DIM))
    todo = [i for i, t in enumerate(clean) if t]
    if todo:
        vecs = np.asarray(model().embed([clean[i] for i in todo], norm=True), dtype=float)
        out[todo] = vecs
    return out
