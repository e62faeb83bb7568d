"""The oracle: the best reward the judge can give within the embedded action space.

Exhaustive: every simple walk from the seed node of at most `depth` hops
(ending at the first Product Feature, as the embedded policy's do), times
every email style. It is the ceiling learning is measured against, so
it must be exact; a cap on the number of emails keeps it from running away
on big graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codreamer.agent.style import ALL_STYLES, EmailStyle
from codreamer.agent.writer import write_email
from codreamer.errors import OracleTooLargeError
from codreamer.graph.schema import is_product_feature
from codreamer.graph.store import GraphStore
from codreamer.judge.rubric import RubricJudge
from codreamer.models import CUSTOMER_JOB, FinalEmail, Judgement, Scenario

DEFAULT_MAX_EMAILS = 200_000
STYLES = list(ALL_STYLES)


@dataclass
class OracleResult:
    reward: float
    email: FinalEmail
    judgement: Judgement
    path: list[str]
    style: EmailStyle
    walks: int
    emails_judged: int  # fewer than walks x styles when the bound pruned some


def count_walks(store: GraphStore, seed: str, depth: int, limit: int) -> int:
    """Simple walks of 0..depth hops from `seed`; stops counting past `limit`."""
    count = 0
    stack: list[tuple[str, tuple[str, ...]]] = [(seed, (seed,))]
    while stack:
        cur, path = stack.pop()
        count += 1
        if count > limit:
            return count
        if len(path) - 1 >= depth or is_product_feature(cur):
            continue
        for nb in store.out_neighbours(cur):
            if nb.id not in path:
                stack.append((nb.id, path + (nb.id,)))
    return count


def walks(store: GraphStore, seed: str, depth: int) -> list[list[str]]:
    out: list[list[str]] = []
    stack: list[tuple[str, list[str]]] = [(seed, [seed])]
    while stack:
        cur, path = stack.pop()
        out.append(path)
        if len(path) - 1 >= depth or is_product_feature(cur):
            continue
        for nb in reversed(store.out_neighbours(cur)):
            if nb.id not in path:
                stack.append((nb.id, path + [nb.id]))
    return out


def oracle(
    store: GraphStore,
    scenario: Scenario,
    depth: int,
    judge: RubricJudge | None = None,
    max_emails: int = DEFAULT_MAX_EMAILS,
    sender: Any = None,
) -> OracleResult:
    seed = next((s for s in scenario.seed_nodes if s in store), CUSTOMER_JOB)
    limit = max(1, max_emails // len(STYLES))
    n_walks = count_walks(store, seed, depth, limit)
    if n_walks > limit:
        raise OracleTooLargeError(
            f"the oracle would judge more than {max_emails:,} emails "
            f"(over {limit:,} walks of <= {depth} hops x {len(STYLES)} styles); "
            "use a smaller graph or depth, or raise the cap"
        )
    judge = judge or RubricJudge(store)
    best: OracleResult | None = None
    judged = 0
    seen: dict[tuple[str, str, tuple[str, ...]], Any] = {}
    # Walks that reach a Product Feature first: they set a high bar early, and
    # a walk whose ceiling (the judge's bound for its citations) cannot beat
    # the bar is skipped without judging. Exact: nothing skipped could win.
    ordered = sorted(walks(store, seed, depth), key=lambda w: -judge.ceiling(w))
    for path in ordered:
        if best is not None and judge.ceiling(path) <= best.reward:
            continue
        for style in STYLES:
            email = write_email(store, path, scenario, style, sender)
            # Styles that differ only where a walk has nothing to say (about half
            # of them on the sample graph) write the same email: judged once.
            key = (email.subject, email.body, tuple(email.citations))
            j = seen.get(key)
            if j is None:
                j = seen[key] = judge.judge(email, scenario, sender)
            judged += 1
            if best is None or j.total > best.reward + 1e-12:
                best = OracleResult(j.total, email, j, path, style, n_walks, 0)
    assert best is not None
    best.emails_judged = judged
    return best
