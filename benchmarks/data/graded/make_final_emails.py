"""The system's default final emails for the graded corpus (emails/<prefix>-<graph>.jsonl).

Each email is the final email of a default single-prospect learn-loop (RunSpec's
defaults: 3 iterations, group 16, the embedded policy and the rubric judge), one
run per prospect and seed: what a user gets from the service for that prospect.

    uv run python benchmarks/data/graded/make_final_emails.py --prefix system7 \
        --split heldout --seeds 3
    uv run python benchmarks/data/graded/make_final_emails.py --prefix system6 \
        --split tuning --per-graph 4 --seeds 1 --default-sender

The sender is the graph's seller as in packet I (emails/system5-<graph>.jsonl) or,
with --default-sender, the service's default (Sam Carter). --per-graph takes that
many prospects per graph, shuffled by the graph's name (the sample graph is left
out of a tuning batch: its prospects are the service's presets).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _graded  # noqa: E402

from codreamer.config import Settings  # noqa: E402
from codreamer.loop.learn_loop import run_learn_loop  # noqa: E402
from codreamer.loop.local import new_local_run  # noqa: E402
from codreamer.models import Sender  # noqa: E402
from codreamer.runs.spec import RunSpec  # noqa: E402

GRADED = Path(__file__).resolve().parent
DEFAULT_SENDER = Sender().model_dump()


def default_final(settings: Settings, store, scenario, seed: int, sender: Sender) -> dict:
    """The final email file of one default single-prospect run (RunSpec's defaults)."""
    paths = new_local_run(
        settings, store, RunSpec(seed=seed, sender=sender).loop_config([scenario])
    )
    result = run_learn_loop(paths, settings=settings)
    assert result.status == "succeeded", result.error
    return json.loads(paths.final_email.read_text())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True, help="file prefix and email kind")
    ap.add_argument("--split", choices=("tuning", "heldout"), default="heldout")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--per-graph", type=int, default=0, help="prospects per graph (0: all)")
    ap.add_argument("--default-sender", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        settings = Settings(CODREAMER_RESULTS_DIR=tmp / "results", CODREAMER_DATA_DIR=tmp / "data")
        for g in _graded.split()[args.split]:
            if g == "sample" and args.split == "tuning":
                continue
            out_file = GRADED / "emails" / f"{args.prefix}-{g}.jsonl"
            if out_file.exists():
                raise SystemExit(f"{out_file} exists: graded batches are never overwritten")
            sender = None
            if not args.default_sender:
                first = (GRADED / "emails" / f"system5-{g}.jsonl").read_text().splitlines()[0]
                sender = json.loads(first)["sender"]
            store = _graded.graph(g)
            items = list(_graded.scenarios(g).items())
            if args.per_graph:
                random.Random(g).shuffle(items)
                items = items[: args.per_graph]
            rows = []
            for sid, sc in items:
                for seed in range(args.seeds):
                    fin = default_final(
                        settings, store, sc, seed, Sender.model_validate(sender or {})
                    )
                    rows.append(
                        {
                            "id": f"{g}-{sid}-{args.prefix}-final-{seed}",
                            "graph": g,
                            "scenario": sid,
                            "source": "embedded",
                            "kind": f"{args.prefix}-final",
                            "sender": sender or DEFAULT_SENDER,
                            "email": fin["email"],
                        }
                    )
            out_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
            print(g, len(rows), flush=True)


if __name__ == "__main__":
    main()
