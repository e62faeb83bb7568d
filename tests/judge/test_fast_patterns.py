"""The judge's faster forms of its patterns find what the plain forms find."""

from __future__ import annotations

import json
import re

from codreamer.judge.rubric import flaws, graph_criteria, natural, semantic, sendability
from tests.support.paths import REPO

CAL = REPO / "benchmarks" / "data" / "calibration"


def _texts() -> list[str]:
    out = ["", "Acme and Big Co saw", "Acme, Foo-Bar and O'Neil cut costs", "-deadbeef",
           "Latency 0 at noon", "Product Feature: x", "the the", "THE ROI", "1,200.5 %",
           "two hours", "every 3 weeks", "é 12", "ſtuff 1", "Customer Job"]  # fmt: skip
    for name in ("calibration.jsonl", "heldout.jsonl", "blind.jsonl"):
        for line in (CAL / name).read_text().splitlines():
            if line.strip():
                e = json.loads(line)["email"]
                body = f"{e.get('subject') or ''}\n{e.get('body') or ''}"
                out += [body, body.lower(), *body.split(". ")]
    return out


def test_names_did_unrolled_matches_the_counted_form() -> None:
    counted = re.compile(graph_criteria._NAMES_DID.pattern.replace(
        r"([A-Z][\w&'.-]+\s?(?:[A-Z][\w&'.-]+\s?){0,2}", r"((?:[A-Z][\w&'.-]+\s?){1,3}", 1
    ))  # fmt: skip
    assert counted.pattern != graph_criteria._NAMES_DID.pattern
    for t in _texts():
        want = [(m.span(), m.group(1)) for m in counted.finditer(t)]
        assert [(m.span(), m.group(1)) for m in graph_criteria._NAMES_DID.finditer(t)] == want


def test_ascii_forms_agree_on_ascii_text() -> None:
    for t in _texts():
        if not t.isascii():
            continue
        assert graph_criteria._NUMBER_ASCII.findall(t) == graph_criteria._NUMBER.findall(t)
        assert semantic._has_digit(t) == bool(semantic._DIGIT.search(t))
        for x in (t, t.lower(), "$ $5 $$5 $,5 5$ x$1,000.5% %$%"):
            assert semantic._FIGURE_ASCII.findall(x) == semantic._FIGURE.findall(x)
        low = t.lower()
        assert flaws._repeated_word(low) == bool(flaws._REPEATED_WORD.search(" " + low))


def test_first_passes_never_miss_a_match() -> None:
    for t in _texts():
        if natural._NODE_ID_SUBJECT.search(t):
            assert natural._may_name_node(t), t
        if flaws._CLICKBAIT.search(t.lower()):
            assert flaws._ANY_CLICKBAIT.found(t.lower()), t
        assert bool(sendability._CAPS_RUN.search(t)) == bool(re.search(r"[A-Z]{4}", t))
        low = t.lower()
        assert semantic.measures(low) == frozenset(
            (
                "few" if n in semantic._FEW else semantic._WORDNUM.get(n, n.replace(",", "")),
                semantic._UNIT_NAME.get(u, u),
            )
            for n, u in semantic._MEASURE.findall(low)
        )
