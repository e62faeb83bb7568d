"""The judge's word-by-word token ids equal the tokenizer's own `encode`; its cheaper
mean of the best cosines equals numpy's."""

from __future__ import annotations

import numpy as np

from codreamer.judge.rubric import meaning


def test_word_token_ids_equal_the_tokenizers_encode() -> None:
    # Accents, other scripts, ligatures, a zero-width space (not split on), and the
    # tokenizer's added tokens, which it matches before the BPE model.
    words = ["alerts", "dispatcher", "naïve", "GDPR", "99.5%", "e.g.", "Frostline's",
             "日本語", "😀", "İstanbul", "ﬁle", "a\u200bb",
             "<s>", "x</s>", "<unk>y", "<<"]  # fmt: skip
    meaning._CHUNK_IDS.clear()
    meaning._fill_chunks(words)
    tok = meaning._model().tokenizer
    for w in words:
        assert meaning._CHUNK_IDS[w] == tok.encode(w, add_special_tokens=False).ids, w


def test_top_mean_is_numpys_mean_of_the_highest() -> None:
    rng = np.random.default_rng(0)
    for scale in (1.0, 1e-38, 1e30):  # subnormal halves included
        for n in range(3, 12):
            for _ in range(200):
                sims = (rng.uniform(-1, 1, n) * scale).astype(np.float32)
                want = float(np.sort(sims)[-2:].mean())
                assert meaning.top_mean(sims, 2) == want
