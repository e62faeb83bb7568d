"""A run's ceiling for the dashboard: the oracle's reward (codreamer/train/oracle.py)
for the run's first prospect (as `learn-loop --oracle` reports it), computed only
when it is cheap.

"Cheap" is a documented cap: at most ORACLE_MAX_EMAILS judged emails (the sample
graph needs 1,728 at any depth). Past it, or for a policy or judge other than the
embedded policy and the rubric judge (whose choices and score the oracle searches),
the reward is null with the reason. Computed once per run, one search at a time, and
kept in the run's directory: a run's graph, prospects and depth never change.
"""

from __future__ import annotations

import threading
from typing import Any

from codreamer.errors import OracleTooLargeError
from codreamer.graph.schema import parse_graph
from codreamer.graph.store import GraphStore
from codreamer.loop.config import LoopConfig
from codreamer.store.files import atomic_write_json, read_json
from codreamer.store.meta import read_meta
from codreamer.store.paths import RunPaths

ORACLE_MAX_EMAILS = 2_000
ORACLE_FILE = "oracle.json"
# Two callers asking at once (a page and its reload) wait for one search, not two.
_SEARCH = threading.Lock()


def run_oracle(paths: RunPaths) -> dict[str, Any]:
    cached = paths.dir / ORACLE_FILE
    with _SEARCH:
        if cached.exists():
            return read_json(cached)  # type: ignore[no-any-return]
        config = LoopConfig.from_meta(read_meta(paths))
        reward, reason = ceiling(paths, config)
        out = {
            "run_id": paths.run_id,
            "scenario_id": config.scenario.id,
            "oracle_reward": reward,
            "reason": reason,
            "max_emails": ORACLE_MAX_EMAILS,
        }
        atomic_write_json(cached, out)
        return out


def ceiling(paths: RunPaths, config: LoopConfig) -> tuple[float | None, str | None]:
    # Deferred: the oracle's search (and its templates) loads on the first oracle request.
    from codreamer.train.oracle import oracle

    if config.policy != "embedded" or config.judge != "rubric":
        return None, "the oracle searches the embedded policy's choices, scored by the rubric"
    store = GraphStore(parse_graph(read_json(paths.graph)))
    try:
        best = oracle(
            store, config.scenario, config.depth, max_emails=ORACLE_MAX_EMAILS, sender=config.sender
        )
    except OracleTooLargeError as exc:
        return None, str(exc)
    return round(best.reward, 6), None
