"""`any_of` matches a text exactly when one of its patterns does."""

from __future__ import annotations

import json
import re

import pytest

from codreamer.judge.rubric import flaws, natural, semantic
from codreamer.judge.rubric.first_pass import _literal_prefix, any_of
from tests.support.paths import REPO

CAL = REPO / "benchmarks" / "data" / "calibration"

PATTERN_SETS = [
    [rx for _, rx, _ in flaws._TONES],
    [flaws._THREAD_BODY, flaws._URGENCY, flaws._GUARANTEE],
    [natural._AUTHOR_NOTE, natural._DEFINITION],
    [natural._STOCK],
    [flaws._CAP_AFTER, flaws._CAP_AFTER_COLON_CLAUSE],
    [flaws._READERS_COMPANY],
    [semantic._PROOF, semantic._RESULT],
    [semantic._FREQUENCY],
    [semantic._NEGATED],
    [semantic._SOCIAL_PROOF],
    # The shared first passes of `screens`.
    [flaws._THREAD_BODY, flaws._URGENCY, flaws._GUARANTEE, natural._STOCK],
    [semantic._SOCIAL_PROOF, natural._AUTHOR_NOTE, natural._DEFINITION],
    [re.compile(r"\b(?:a|bc)d\b|x+y|\(again\)|-{2,} ?message|(?:q|r)?s")],
    [re.compile(r"\b\(again\)|\b(?:potential )?overlaps?|a{2}b|c{1,3}d\b|\bz{2,}|\b-x")],
    # A digit class behind a word boundary goes with the words' first letters.
    [re.compile(r"\b\d+ of the\b|\b(?:\d|two) days|case study")],
    [semantic._SOCIAL_PROOF, natural._AUTHOR_NOTE, natural._DEFINITION, natural._DUTY],
]


def _texts() -> list[str]:
    out = ["", "x", "as we discussed", "(again)", "--- message", "ad", "bcd!", "xy", "s",
           "x(again)", " (again)", "overlap", "potential overlaps", "aab", "ab", "cccd",
           "ccccd", "zz", "azz", " zz", "-x", "a-x", "cd_", "\nzz",
           # Non-ASCII text takes the Unicode `\W`: a word character on one side.
           "éad", "—ad", "\u2019ad", "é as we discussed", "—as we discussed", "café study",
           "top—rated", "élan top-rated", "\xa0zz", "ézz", "7 of the top", "a7 of the",
           "_7 of the", "(12 of the", "é7 of the", "—7 of the", "٣ of the", "x٣ of the",
           "3 days", "33 days", "x3 days", "two days"]  # fmt: skip
    for name in ("calibration.jsonl", "heldout.jsonl", "blind.jsonl"):
        for line in (CAL / name).read_text().splitlines():
            if line.strip():
                e = json.loads(line)["email"]
                body = f"{e.get('subject') or ''}\n{e.get('body') or ''}"
                out += [body, body.lower(), *body.split(". "), *body.lower().split(". ")]
    return out


@pytest.mark.parametrize("patterns", PATTERN_SETS)
def test_any_of_matches_when_one_pattern_does(patterns: list[re.Pattern[str]]) -> None:
    fast = any_of(*patterns)
    for text in _texts():
        want = any(p.search(text) for p in patterns)
        assert (fast.found(text)) == want, text[:80]


def test_any_of_refuses_flags_and_back_references() -> None:
    with pytest.raises(ValueError):
        any_of(re.compile(r"\bab", re.IGNORECASE))
    with pytest.raises(ValueError):
        any_of(re.compile(r"(\w+) \1"))
    with pytest.raises(ValueError):
        any_of(re.compile(r"(?<![.!?])\bab"))
    with pytest.raises(ValueError):
        any_of(re.compile(r"^ab"))


def test_grammar_first_passes_agree_with_the_patterns() -> None:
    for text in [*_texts(), "we is here", "the the end", "x the the", "_the the", "and so"]:
        low = text.lower()
        agreement = flaws._ANY_AGREEMENT.found(low) or bool(flaws._REPEATED_WORD.search(" " + low))
        assert agreement == bool(flaws._AGREEMENT.search(low)), text[:80]
        assert flaws._ANY_DANGLING.found(low) == bool(flaws._DANGLING_END.search(low)), text[:80]


def test_writes_as_first_pass_agrees_with_its_pattern() -> None:
    from codreamer.judge.rubric.text_criteria import scenario_info
    from codreamer.models import Scenario

    scenarios = json.loads((CAL / "scenarios.json").read_text())
    for raw in scenarios:
        info = scenario_info(Scenario.model_validate(raw))
        assert info.writes_as is not None and info.writes_as_any is not None
        extra = [f"i'm {info.first}.", f"this is  {info.first}", f"we at the {info.company_word}"]
        for text in [*_texts(), *extra]:
            low = text.lower()
            assert info.writes_as_any.found(low) == bool(info.writes_as.search(low)), text[:80]


@pytest.mark.parametrize(
    ("rest", "prefix"),
    [("abc", "abc"), ("ab?c", "a"), (r"\-x", "-x"), ("a+b", "a"), ("x{2}", ""),
     ("(?:a|b)c", ""), ("a|b", ""), (r"\bq", ""), (r"\.\d", "."), ("ab*", "a")],
)  # fmt: skip
def test_a_literal_prefix_is_what_every_match_starts_with(rest: str, prefix: str) -> None:
    assert _literal_prefix(rest) == prefix
