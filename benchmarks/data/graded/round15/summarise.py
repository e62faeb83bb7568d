"""Each round-15 panel's paired result: main a40e13c ("old") against the round's
change ("new"), on three graphs nobody had developed on when the panels read them.
Panel F: the writer's one notes hook with judge relevance that leaves out sentences
reading the notes back (not landed); panel G: the writer as landed (8c52237), both on
injection-molding, contract-janitorial and public-records-requests; panel J: main
d795dcf on three newer graphs (bank-aml-alerts, fire-sprinkler-inspection,
financial-aid-verification); panel L: main 4ea4115 on three more (audit-pbc-requests,
cpg-shelf-execution, fiber-build-closeout); panel M: main b5eeb42 on three more
(apartment-unit-turns, gage-calibration, sterile-processing); panel N: main 4242f1d
on three more (grain-storage, k12-device-fleet, stadium-gate-entry).

    uv run python benchmarks/data/graded/round15/summarise.py

Prints, per panel, as JSON: the mean and median of each email's mean grade, how many
emails fall below 3, the grade counts, and how many of the paired emails the readers
graded higher, lower or the same.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def panel(folder: Path) -> dict:
    key = json.loads((folder / "key.json").read_text())
    grades: dict[tuple[str, str], list[int]] = defaultdict(list)
    for reader in sorted(folder.glob("r*.jsonl")):
        for line in reader.read_text().splitlines():
            row = json.loads(line)
            version, email = key[row["id"]]
            grades[(version, email)].append(row["grade"])
    out: dict = {"readers": len(list(folder.glob("r*.jsonl")))}
    for version in ("old", "new"):
        means = [statistics.mean(g) for (v, _), g in grades.items() if v == version]
        every = Counter(x for (v, _), g in grades.items() if v == version for x in g)
        out[version] = {
            "emails": len(means),
            "mean": round(statistics.mean(means), 3),
            "median": round(statistics.median(means), 3),
            "below_3": sum(m < 3 for m in means),
            "grades": dict(sorted(every.items())),
        }
    pairs = [
        (statistics.mean(grades[("old", e)]), statistics.mean(g))
        for (v, e), g in grades.items()
        if v == "new" and ("old", e) in grades
    ]
    out["new_better"] = sum(n > o for o, n in pairs)
    out["new_worse"] = sum(n < o for o, n in pairs)
    out["same"] = sum(n == o for o, n in pairs)
    return out


def main() -> None:
    print(
        json.dumps(
            {p.name: panel(p) for p in sorted((HERE / "panels").iterdir()) if p.is_dir()},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
