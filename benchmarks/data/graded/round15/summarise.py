"""Each round-15 panel's paired result: main a40e13c ("old") against the round's
change ("new"), on three graphs nobody had developed on when the panels read them.
Panel F: the writer's one notes hook with judge relevance that leaves out sentences
reading the notes back (not landed); panel G: the writer as landed (8c52237), both on
injection-molding, contract-janitorial and public-records-requests; panel J: main
d795dcf on three newer graphs (bank-aml-alerts, fire-sprinkler-inspection,
financial-aid-verification); panel L: main 4ea4115 on three more (audit-pbc-requests,
cpg-shelf-execution, fiber-build-closeout); panel M: main b5eeb42 on three more
(apartment-unit-turns, gage-calibration, sterile-processing); panel N: main 4242f1d
on three more (grain-storage, k12-device-fleet, stadium-gate-entry); panel O: main
f928677 on three more (home-care-evv, law-firm-conflicts, quarry-conveyors).

    uv run python benchmarks/data/graded/round15/summarise.py

Prints, per panel, as JSON: the mean and median of each email's mean grade, how many
emails fall below 3, the grade counts, and how many of the paired emails the readers
graded higher, lower or the same.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Round 14's script reads a panel folder the same way: one paired result per panel.
_SPEC = importlib.util.spec_from_file_location(
    "round14_summarise", HERE.parent / "round14" / "summarise.py"
)
assert _SPEC is not None and _SPEC.loader is not None
_ROUND14 = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_ROUND14)


def main() -> None:
    panels = sorted(p for p in (HERE / "panels").iterdir() if p.is_dir())
    print(json.dumps({p.name: _ROUND14.panel(p) for p in panels}, indent=1))


if __name__ == "__main__":
    main()
