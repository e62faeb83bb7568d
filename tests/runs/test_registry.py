"""Adding a policy is one module plus one registry line (CONTRIBUTING.md): a trivial
policy added here appears in the CLI's help, the API's request schema and its OpenAPI
document, is accepted by RunSpec, and runs a learn-loop end to end.

The policy is added in a fresh interpreter, so the registry of this test process is
left as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codreamer.registry import JUDGES, POLICIES, TRAINERS, check_pairing, default_trainer
from codreamer.runs.spec import RunSpec
from tests.support.paths import REPO

# The one module: a policy that writes as the embedded one does, under its own name.
ECHO_MODULE = """
from codreamer.agent.policies.embedded import EmbeddedPolicy


class EchoPolicy(EmbeddedPolicy):
    name = "echo"
"""

# The one registry line, then what the test looks at.
PROBE = """
from codreamer.registry import POLICIES, PolicyEntry

POLICIES.add(PolicyEntry("echo", "repeats the embedded policy",
                         "echo_policy:EchoPolicy.from_settings", trainers=("none",)))

import json, sys
from codreamer.api.app import create_app
from codreamer.api.schemas import LearnLoopRequest
from codreamer.cli import app
from codreamer.config import Settings
from codreamer.runs.spec import RunSpec

out = {}
openapi = create_app(Settings()).openapi()
request = openapi["components"]["schemas"]["LearnLoopRequest"]["properties"]["policy"]
out["openapi"] = [b.get("enum") for b in request["anyOf"] if "enum" in b][0]
schema = LearnLoopRequest.model_json_schema()["properties"]["policy"]
out["schema"] = [b.get("enum") for b in schema["anyOf"] if "enum" in b][0]
out["spec_trainer"] = RunSpec.model_validate({"policy": "echo"}).trainer
print("PROBE=" + json.dumps(out))
sys.stdout.flush()
try:
    app(sys.argv[1:])
except SystemExit as e:
    assert e.code == 0, e.code
"""


def _probe(tmp_path: Path, *args: str) -> tuple[dict[str, object], str]:
    (tmp_path / "echo_policy.py").write_text(ECHO_MODULE)
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "CODREAMER_RESULTS_DIR": str(tmp_path / "results"),
    }
    env.pop("FRONTEND_URL", None)
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROBE), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    first, _, rest = out.stdout.partition("\n")
    assert first.startswith("PROBE="), out.stdout[:500]
    return json.loads(first.removeprefix("PROBE=")), rest


def test_a_policy_added_in_one_line_is_offered_everywhere(tmp_path: Path) -> None:
    found, help_text = _probe(tmp_path, "learn-loop", "--help")
    assert found["openapi"] == ["embedded", "openai", "art", "echo"]
    assert found["schema"] == ["embedded", "openai", "art", "echo"]
    assert found["spec_trainer"] == "none"  # its registry line's default trainer
    policy_help = " ".join(help_text.split()).split("--policy NAME", 1)[1].split("--", 1)[0]
    assert "echo" in policy_help, help_text
    assert "none" in help_text.split("--trainer NAME", 1)[1].split("--judge", 1)[0]


def test_a_policy_added_in_one_line_runs(tmp_path: Path) -> None:
    _, output = _probe(
        tmp_path, "learn-loop", "--iterations", "1", "--depth", "2", "--group-size", "2",
        "--policy", "echo", "--json",
    )  # fmt: skip
    summary = json.loads(output.strip().splitlines()[-1])
    assert summary["status"] == "succeeded", summary
    meta = json.loads(Path(summary["results_path"], "meta.json").read_text())
    assert (meta["config"]["policy"], meta["config"]["trainer"]) == ("echo", "none")
    assert summary["final_email"]["subject"]


def test_this_process_s_registry_is_the_shipped_one() -> None:
    assert POLICIES.names() == ("embedded", "openai", "art")
    assert TRAINERS.names() == ("grpo", "art", "prompt", "none")
    assert JUDGES.names() == ("rubric", "llm", "ruler")
    assert [default_trainer(p) for p in POLICIES.names()] == ["grpo", "prompt", "art"]


@pytest.mark.parametrize(
    ("trainer", "policy", "fits"),
    [("grpo", "openai", "prompt, none"), ("art", "embedded", "grpo, none")],
)
def test_a_pairing_that_cannot_work_names_what_does(trainer: str, policy: str, fits: str) -> None:
    with pytest.raises(ValueError, match=f"allowed with policy {policy}: {fits}$"):
        check_pairing(trainer, policy)
    with pytest.raises(ValueError, match="unknown policy 'nope': choose embedded, openai, art"):
        check_pairing("none", "nope")
    assert RunSpec.model_validate({"policy": policy, "trainer": "none"}).trainer == "none"
