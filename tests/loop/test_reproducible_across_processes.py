"""A run's files depend on its seed only, not on the process: string hashing (and so
the order of a set) changes with PYTHONHASHSEED, and a float sum taken in another
order differs in the last bit. Three processes, three hash seeds, the same files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.env import clean_env

# Files that record the moment or the run id, not the learning.
_CLOCKED = {"meta.json", "events.jsonl", "webhooks.jsonl"}


def _run(tmp_path: Path, hash_seed: str) -> dict[str, bytes]:
    results = tmp_path / f"results-{hash_seed}"
    env = clean_env(PYTHONHASHSEED=hash_seed, CODREAMER_RESULTS_DIR=str(results))
    cmd = [str(Path(sys.executable).parent / "codreamer"), "learn-loop", "3", "--json"]
    subprocess.run(cmd, cwd=tmp_path, env=env, check=True, capture_output=True, timeout=300)
    (run,) = (results / "runs").iterdir()
    return {p.name: p.read_bytes() for p in sorted(run.iterdir()) if p.name not in _CLOCKED}


def test_same_seed_same_files_whatever_the_hash_seed(tmp_path: Path) -> None:
    first, *others = (_run(tmp_path, s) for s in ("1", "2", "3"))
    assert any(n.endswith("_policy.json") for n in first)
    for other in others:
        assert other.keys() == first.keys()
        assert [n for n in first if first[n] != other[n]] == []
