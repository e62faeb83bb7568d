"""Write the system's own emails into the graded corpus (emails/<prefix>-<graph>.jsonl).

Round 1 (emails/system-*.jsonl) was written with the composer of commit d8f4d05,
before the writer of agent/writer/ existed; rerunning this script writes the
current writer's emails under another prefix (`--prefix`), never over round 1.

For every graph and prospect of the corpus, the embedded policy's writer at three
stages: an untrained policy (a uniformly random walk and style), a second random
one, and a trained one (a shortest argument to a Product Feature in the style the
policy's defaults pick). The walk and style are drawn with a fixed seed, so the
file is reproducible. Run once, before the readers grade:

    uv run python benchmarks/data/graded/make_system_emails.py
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _graded  # noqa: E402

from codreamer.agent.style import ALL_STYLES, DEFAULT_STYLE  # noqa: E402
from codreamer.agent.writer import write_email  # noqa: E402
from codreamer.graph.search import shortest_path  # noqa: E402
from codreamer.models import CUSTOMER_JOB, Sender  # noqa: E402
from codreamer.train.oracle import walks  # noqa: E402


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", default="system2", help="file prefix and email kind")
    args = ap.parse_args()
    if args.prefix == "system":
        raise SystemExit("round 1 (prefix 'system') is graded as it is: choose another prefix")
    rng = random.Random(7)
    graphs = _graded.split()["tuning"] + _graded.split()["heldout"]
    for gid in graphs:
        store = _graded.graph(gid)
        scs = _graded.scenarios(gid)
        human = (
            [
                json.loads(x)
                for x in (_graded.GRADED / "emails" / f"{gid}.jsonl").read_text().splitlines()
                if x.strip()
            ]
            if (_graded.GRADED / "emails" / f"{gid}.jsonl").exists()
            else []
        )
        sender = (
            Sender.model_validate(human[0]["sender"])
            if human and human[0].get("sender")
            else Sender(name="Sam Carter", company=None)
        )
        ws = [w for w in walks(store, CUSTOMER_JOB, 5) if len(w) > 1]
        complete = [w for w in ws if store.hops_to_feature(w[-1]) == 0] or ws
        out = []
        for sid, sc in scs.items():
            picks = [
                ("untrained", rng.choice(ws), rng.choice(ALL_STYLES)),
                ("untrained", rng.choice(complete), rng.choice(ALL_STYLES)),
                ("trained", shortest_path(store), DEFAULT_STYLE),
            ]
            for n, (stage, path, style) in enumerate(picks[1:], 1):
                email = write_email(store, path, sc, style, sender)
                out.append(
                    {
                        "id": f"{gid}-{sid}-{args.prefix}-{stage}-{n}",
                        "graph": gid,
                        "scenario": sid,
                        "source": "embedded",
                        "kind": f"system-{stage}",
                        "sender": sender.model_dump(),
                        "email": email.model_dump(),
                    }
                )
        (_graded.GRADED / "emails" / f"{args.prefix}-{gid}.jsonl").write_text(
            "".join(json.dumps(o) + "\n" for o in out)
        )
        print(gid, len(out))


if __name__ == "__main__":
    main()
