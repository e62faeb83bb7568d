"""With nothing configured, the CLI and the embedded learn-loop import none of the heavy
optional packages (DESIGN §9); the `openai` policy needs no `openai` package either."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.env import clean_env
from tests.support.openai_server import OpenAIServer

HEAVY = ("art", "weave", "litellm", "openai", "torch", "wandb", "xllamacpp")

# Runs the console script's `main` in-process, then reports which heavy modules got
# imported (on stderr, after the command's own output).
PROBE = """
import atexit, json, sys
HEAVY = {heavy!r}
atexit.register(lambda: print("HEAVY=" + json.dumps(
    sorted({{m.split(".")[0] for m in sys.modules}} & set(HEAVY))), file=sys.stderr))
sys.argv = ["codreamer", *{args!r}]
from codreamer.cli import main
main()
"""


def probe(args: list[str], cwd: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], list]:
    p = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY, args=args)],
        cwd=cwd,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=240,
    )
    line = next(x for x in reversed(p.stderr.splitlines()) if x.startswith("HEAVY="))
    return p, json.loads(line[len("HEAVY=") :])


def test_help_imports_nothing_heavy(tmp_path):
    p, heavy = probe(["--help"], tmp_path)
    assert p.returncode == 0 and "learn-loop" in p.stdout
    assert heavy == []


def test_default_learn_loop_imports_nothing_heavy(tmp_path):
    p, heavy = probe(
        ["learn-loop", "1", "2", "--json"], tmp_path, CODREAMER_RESULTS_DIR=str(tmp_path)
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.splitlines()[-1])["status"] == "succeeded"
    assert heavy == []


def test_openai_policy_and_llm_judge_need_no_openai_package(tmp_path):
    with OpenAIServer() as srv:
        p, heavy = probe(
            ["learn-loop", "1", "2", "--json"],
            tmp_path,
            CODREAMER_RESULTS_DIR=str(tmp_path),
            CODREAMER_POLICY="openai",
            CODREAMER_JUDGE="llm",
            OPENAI_BASE_URL=srv.url,
        )
    assert p.returncode == 0, p.stderr
    assert heavy == []
