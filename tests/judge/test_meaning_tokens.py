"""The judge's word-by-word token ids equal the tokenizer's own `encode`."""

from __future__ import annotations

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
