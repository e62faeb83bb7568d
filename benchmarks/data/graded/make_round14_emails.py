"""The default final email of a single-prospect run, for every prospect of every graph
in a folder: what a blind panel reads.

    uv run python benchmarks/data/graded/make_round14_emails.py \
        benchmarks/data/graded/round14 out.jsonl [--seeds 1] [--only GRAPH]

The folder holds `graphs/<name>.json` and `prospects/<name>.json` (a list of
scenarios), or both side by side as `<name>.json` and `<name>.prospects.json`. Each
prospect gets a default run (`RunSpec` defaults, seed 0.. --seeds-1) in a temporary
folder, signed by one sender; one JSON line per final email, with its reward.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_final_emails import default_final  # noqa: E402

from codreamer.config import Settings  # noqa: E402
from codreamer.graph.store import GraphStore  # noqa: E402
from codreamer.models import Scenario, Sender  # noqa: E402


def graphs_in(folder: Path) -> list[tuple[str, Path, Path]]:
    """(name, graph file, prospects file) for every graph of the folder."""
    if (folder / "graphs").is_dir():
        return [
            (g.stem, g, folder / "prospects" / g.name)
            for g in sorted((folder / "graphs").glob("*.json"))
        ]
    return [
        (g.stem, g, g.with_suffix(".prospects.json"))
        for g in sorted(folder.glob("*.json"))
        if not g.name.endswith(".prospects.json")
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--only", default=None, help="only the graph of this name")
    args = ap.parse_args()
    sender = Sender(name="Sam Carter", title="Account Executive")
    with args.out.open("w") as fh, tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            CODREAMER_RESULTS_DIR=Path(tmp) / "results", CODREAMER_DATA_DIR=Path(tmp) / "data"
        )
        for name, graph, prospects in graphs_in(args.folder):
            if args.only and name != args.only:
                continue
            store = GraphStore.from_json(json.loads(graph.read_text()))
            for raw in json.loads(prospects.read_text()):
                sc = Scenario.model_validate(raw)
                for seed in range(args.seeds):
                    final = default_final(settings, store, sc, seed, sender)
                    row = {
                        "id": f"{name}-{sc.id}-s{seed}",
                        "graph": name,
                        "scenario": sc.id,
                        "seed": seed,
                        "prospect": sc.prospect.model_dump(),
                        "goal": sc.goal,
                        "sender": sender.model_dump(),
                        "email": final["email"],
                        "reward": final["reward"],
                    }
                    fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
