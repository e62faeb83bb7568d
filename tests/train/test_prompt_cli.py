"""`codreamer prompts show|apply` on a real openai-policy run (scripted server), and a
later run starting from the applied override only while its section still matches."""

from __future__ import annotations

import json
import shutil
from functools import partial
from pathlib import Path

import pytest

from codreamer.agent.policies.prompt import DEFAULT_SECTIONS, text_hash
from tests.support.cli import run_cli
from tests.support.openai_server import OpenAIServer
from tests.support.paths import REPO

# The installed `codreamer` script, as a user runs it.
cli = partial(run_cli, script=True, timeout=240)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "data", tmp_path / "data")
    return tmp_path


def test_show_apply_and_a_later_run_starting_from_the_override(workdir: Path) -> None:
    with OpenAIServer() as srv:
        env = {
            "CODREAMER_POLICY": "openai",
            "OPENAI_BASE_URL": srv.url,
            "CODREAMER_DATA_DIR": str(workdir / "data"),
            "CODREAMER_RESULTS_DIR": str(workdir / "results"),
        }
        p = cli("learn-loop", "2", "4", "--group-size", "2", "--json", cwd=workdir, **env)
        assert p.returncode == 0, p.stderr
        run_id = json.loads(p.stdout.strip().splitlines()[-1])["run_id"]

        shown = cli("prompts", "show", run_id, "--json", cwd=workdir, **env)
        assert shown.returncode == 0, shown.stderr
        versions = json.loads(shown.stdout)
        assert [v["iteration"] for v in versions] == [0, 1, 2]
        assert [v["version"] for v in versions] == [0, 1, 2]
        changes = [c for v in versions for c in v["changes"]]
        assert changes, "the scripted model's emails leave some criterion weak"
        for c in changes:
            assert c["rationale"] and c["expected_impact"]
            assert c["original_hash"] == text_hash(DEFAULT_SECTIONS[c["section"]]) or any(
                c["original_hash"] == text_hash(v["sections"][c["section"]]) for v in versions
            )
        text = cli("prompts", "show", run_id, cwd=workdir, **env)
        assert "why:" in text.stdout and "impact:" in text.stdout

        applied = cli("prompts", "apply", run_id, cwd=workdir, **env)
        assert applied.returncode == 0, applied.stderr
        saved = json.loads((workdir / "data" / "prompt_overrides.json").read_text())
        sections = {o["section"] for o in saved["overrides"]}
        assert sections == {c["section"] for c in changes}

        q = cli("learn-loop", "1", "4", "--group-size", "2", "--json", cwd=workdir, **env)
        assert q.returncode == 0, q.stderr
        run2 = json.loads(q.stdout.strip().splitlines()[-1])["run_id"]
        first = json.loads((workdir / "results" / "runs" / run2 / "iter0_prompt.json").read_text())
        assert sorted(a.split("@")[0] for a in first["overrides_applied"]) == sorted(sections)
        last = versions[-1]["sections"]
        assert all(first["sections"][s] == last[s] for s in sections)
        # The system message of the new run is the overridden prompt.
        traj = json.loads(
            (workdir / "results" / "runs" / run2 / "iter1_step1_groups.jsonl")
            .read_text()
            .splitlines()[0]
        )
        system = traj["trajectories"][0]["messages"][0]["content"]
        assert all(last[s] in system for s in sections)
        assert srv.refused == []

    # A run id that is not one: one clear line, exit 1.
    bad = cli("prompts", "show", "run-20990101-000000-abcdef", cwd=workdir, **env)
    assert bad.returncode == 1 and bad.stderr.strip()


def test_apply_skips_an_override_whose_section_changed(workdir: Path) -> None:
    from codreamer.agent.policies.prompt import Prompt, PromptOverride, with_overrides
    from codreamer.train.prompt_store import load_overrides, save_overrides

    path = workdir / "data" / "prompt_overrides.json"
    old = PromptOverride(section="ask", original_hash=text_hash("an older text"), body="Z")
    save_overrides(path, [old])
    prompt, skipped = with_overrides(Prompt(), load_overrides(path))
    assert prompt.sections["ask"] == DEFAULT_SECTIONS["ask"] and skipped
