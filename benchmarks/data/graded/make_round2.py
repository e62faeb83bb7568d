"""Round 2 of the graded corpus: the writer's emails (agent/writer/), graded blind.

- held-out graphs: the final email of a default single-prospect run
  (`codreamer learn-loop --json`, default iterations, seeds 0-2) for every
  prospect: what a user gets, and the writer issue's blind panel;
- every graph: the writer's email for an untrained walk (a random complete walk,
  random style), for the shortest argument in the default style, and for a walk
  that never reaches the product (what a policy that stops early writes).

    uv run python benchmarks/data/graded/make_round2.py
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "benchmarks"))

import _graded  # noqa: E402

from codreamer.agent.style import ALL_STYLES, DEFAULT_STYLE  # noqa: E402
from codreamer.agent.writer import write_email  # noqa: E402
from codreamer.graph.schema import is_product_feature  # noqa: E402
from codreamer.graph.search import shortest_path  # noqa: E402
from codreamer.models import CUSTOMER_JOB, Sender  # noqa: E402
from codreamer.train.oracle import walks  # noqa: E402

PREFIX = "system2"  # round 3 (the writer's second pass) was written with --prefix system3


def sender_of(gid: str) -> Sender:
    f = _graded.GRADED / "emails" / f"{gid}.jsonl"
    first = json.loads(f.read_text().splitlines()[0])
    return Sender.model_validate(first["sender"])


def final_email(gid: str, sid: str, raw: dict, sender: Sender, seed: int, tmp: Path) -> dict:
    sc = {k: v for k, v in raw.items() if k != "id"} | {"id": sid}
    scf = tmp / f"{sid}.json"
    scf.write_text(json.dumps(sc))
    paths = json.loads((_graded.GRADED / "graphs.json").read_text())
    graph = REPO / paths[gid] if not paths[gid].startswith("..") else REPO.parent / paths[gid][3:]
    cmd = ["uv", "run", "codreamer", "learn-loop", "--graph", str(graph), "--scenario", str(scf),
           "--seed", str(seed), "--json", "--sender-name", sender.name]  # fmt: skip
    if sender.company:
        cmd += ["--sender-company", sender.company]
    env = os.environ | {"CODREAMER_RESULTS_DIR": str(tmp / "results")}
    out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["final_email"]


def main() -> None:
    import argparse

    global PREFIX
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", default=PREFIX)
    PREFIX = ap.parse_args().prefix
    rng = random.Random(11)
    split = _graded.split()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for gid in split["tuning"] + split["heldout"]:
            store = _graded.graph(gid)
            sender = sender_of(gid)
            raws = {
                r["id"]: r
                for r in json.loads((_graded.GRADED / "prospects" / f"{gid}.json").read_text())
            }
            ws = [w for w in walks(store, CUSTOMER_JOB, 5) if len(w) > 1]
            complete = [w for w in ws if is_product_feature(w[-1])] or ws
            partial = [w for w in ws if not any(is_product_feature(n) for n in w)] or ws
            out: list[dict] = []

            def add(
                sid: str,
                stage: str,
                email: dict,
                gid: str = gid,
                out: list = out,
                sender: Sender = sender,
            ) -> None:
                out.append({"id": f"{gid}-{sid}-{PREFIX}-{stage}", "graph": gid, "scenario": sid,
                            "source": "embedded", "kind": f"{PREFIX}-{stage.rstrip('0123456789-')}",
                            "sender": sender.model_dump(), "email": email})  # fmt: skip

            for sid, sc in _graded.scenarios(gid).items():
                picks = [("untrained", rng.choice(complete), rng.choice(ALL_STYLES)),
                         ("trained", shortest_path(store), DEFAULT_STYLE),
                         ("no-product", rng.choice(partial), rng.choice(ALL_STYLES))]  # fmt: skip
                for stage, path, style in picks:
                    add(sid, stage, write_email(store, path, sc, style, sender).model_dump())
                if gid in split["heldout"]:
                    for seed in range(3):
                        add(
                            sid,
                            f"final-{seed}",
                            final_email(gid, sid, raws[sid], sender, seed, tmp),
                        )
            f = _graded.GRADED / "emails" / f"{PREFIX}-{gid}.jsonl"
            f.write_text("".join(json.dumps(o) + "\n" for o in out))
            print(gid, len(out), flush=True)


if __name__ == "__main__":
    main()
