"""The real `codreamer` CLI, run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import codreamer_argv, run_cli
from tests.support.paths import REPO


def test_help_imports_nothing_heavy() -> None:
    probe = (
        "import sys\n"
        "from codreamer.cli import app\n"
        "try:\n"
        "    app(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('numpy', 'networkx', 'fastapi', 'uvicorn', 'httpx', 'jinja2',\n"
        "                     'openai', 'art', 'weave') if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "HEAVY=\n" in out.stdout, out.stdout
    assert "graph" in out.stdout and "judge" in out.stdout


def test_graph_validate_ok(shared_kg: Path) -> None:
    out = run_cli("graph", "validate", str(shared_kg / "synthetic-data-16.json"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1
    assert "16 nodes" in lines[0] and "44 edges" in lines[0] and "8 paths" in lines[0]
    assert "6 hops" in lines[0]
    assert run_cli("graph", "validate", "data/graph.json").returncode == 0


def test_graph_validate_bad(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([
        {"id": "Customer Job", "edges": [{"target": "Ghost"}]},
        {"id": "Customer Job"},
        {"id": 5},
    ]))  # fmt: skip
    out = run_cli("graph", "validate", str(bad))
    assert out.returncode == 1
    lines = out.stdout.strip().splitlines()
    assert any("'Ghost'" in ln for ln in lines)
    assert any("duplicate" in ln and "'Customer Job'" in ln for ln in lines)
    assert any(ln.startswith("node #2") for ln in lines)
    assert any("Product Feature" in ln for ln in lines)
    assert len(lines) == 4


@pytest.mark.parametrize("content", [None, "{not json"])
def test_graph_validate_missing_or_not_json(tmp_path: Path, content: str | None) -> None:
    f = tmp_path / "g.json"
    if content is not None:
        f.write_text(content)
    out = run_cli("graph", "validate", str(f))
    assert out.returncode == 1
    assert "g.json" in out.stdout


def _emails_file(tmp_path: Path) -> Path:
    lines = [
        json.dumps({"subject": "Quick note", "body": "Goal: Secure a call",
                    "citations": ["Customer Job", "Product Feature"]}),
        "",
        json.dumps({"subject": "Hi", "body": "Hi Priya,\n\nWould you be open to a call?",
                    "citations": ["Not In The Graph"]}),
        json.dumps({"subject": "x", "body": "y"}),
    ]  # fmt: skip
    f = tmp_path / "emails.jsonl"
    f.write_text("\n".join(lines) + "\n")
    return f


def test_judge_json_shape_and_order(tmp_path: Path) -> None:
    out = run_cli("judge", str(_emails_file(tmp_path)), "--graph", "data/graph.json", "--json")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(ln) for ln in out.stdout.strip().splitlines()]
    assert [r["line"] for r in rows] == [1, 3, 4]
    for r in rows:
        assert 0.0 <= r["total"] <= 1.0
        assert set(r["criteria"]) >= {
            "argument",
            "grounding",
            "relevance",
            "call_to_action",
            "personalisation",
            "english",
            "sendability",
        }
        assert r["scenario"] == "northfield-dairy-ops"
        for c in r["criteria"].values():
            assert set(c) == {"score", "weight", "reason"}
    assert rows[1]["criteria"]["grounding"]["score"] == 0.0
    assert "Not In The Graph" in rows[1]["criteria"]["grounding"]["reason"]


def test_judge_scenario_by_id_and_by_file(tmp_path: Path) -> None:
    emails = _emails_file(tmp_path)
    by_id = run_cli("judge", str(emails), "--scenario", "medroute-pilot", "--json")
    assert by_id.returncode == 0, by_id.stderr
    sc = tmp_path / "sc.json"
    sc.write_text(json.dumps({"prospect": {"name": "Priya Natarajan"}, "goal": "Book a call"}))
    by_file = run_cli("judge", str(emails), "--scenario", str(sc), "--json")
    assert by_file.returncode == 0, by_file.stderr
    first = json.loads(by_file.stdout.splitlines()[1])  # "Hi Priya" now names the prospect
    assert first["criteria"]["personalisation"]["score"] > 0
    unknown = run_cli("judge", str(emails), "--scenario", "nope")
    assert unknown.returncode == 1
    assert "nope" in unknown.stderr and "northfield-dairy-ops" in unknown.stderr


def test_judge_several_scenarios_and_no_graph(tmp_path: Path) -> None:
    emails = _emails_file(tmp_path)
    out = run_cli("judge", str(emails), "--scenario", "northfield-dairy-ops",
              "--scenario", "medroute-pilot", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = [json.loads(ln) for ln in out.stdout.strip().splitlines()]
    assert [(r["line"], r["scenario"]) for r in rows] == [
        (no, sc) for no in (1, 3, 4) for sc in ("northfield-dairy-ops", "medroute-pilot")
    ]
    # "Hi Priya" names the first prospect, not the second: the reward depends on the reader.
    assert (
        rows[2]["criteria"]["personalisation"]["score"]
        > rows[3]["criteria"]["personalisation"]["score"]
    )
    bare = run_cli("judge", str(emails), "--no-graph", "--json")
    assert bare.returncode == 0, bare.stderr
    for r in map(json.loads, bare.stdout.strip().splitlines()):
        assert r["criteria"]["argument"]["reason"] == "no graph: not scored"
        assert r["criteria"]["argument"]["weight"] == r["criteria"]["grounding"]["weight"] == 0
    both = run_cli("judge", str(emails), "--no-graph", "--graph", "data/graph.json")
    assert both.returncode == 1 and "--no-graph" in both.stderr
    sc = tmp_path / "seeded.json"
    sc.write_text(json.dumps({"prospect": {"name": "Ann"}, "goal": "A call",
                              "seed_nodes": ["Nowhere"]}))  # fmt: skip
    seeded = run_cli("judge", str(emails), "--scenario", "medroute-pilot", "--scenario", str(sc))
    assert seeded.returncode == 1 and "'Nowhere'" in seeded.stderr


def test_judge_bad_line_named(tmp_path: Path) -> None:
    f = tmp_path / "e.jsonl"
    f.write_text('{"subject": "a", "body": "b"}\n{"subject": 1\n')
    out = run_cli("judge", str(f), "--json")
    assert out.returncode == 1
    assert "line 2" in out.stderr and out.stdout == ""
    f.write_text('{"subject": "a", "body": "b"}\n[1, 2]\n')
    assert "line 2" in run_cli("judge", str(f)).stderr
    f.write_text('{"subject": "a", "body": "b", "citations": "Customer Job"}\n')
    out = run_cli("judge", str(f))
    assert out.returncode == 1 and "line 1" in out.stderr and "citations" in out.stderr


def test_judge_table(tmp_path: Path) -> None:
    out = run_cli("judge", str(_emails_file(tmp_path)))
    assert out.returncode == 0, out.stderr
    assert "Quick note" in out.stdout and "total" in out.stdout


def test_learn_loop_names_a_trainer_the_policy_cannot_use(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "CODREAMER_RESULTS_DIR": str(tmp_path / "results")}
    cmd = codreamer_argv("learn-loop", "1", "1")
    cmd += ["--policy", "embedded", "--trainer", "prompt"]
    out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "invalid trainer: trainer prompt cannot train policy embedded; "
        "allowed with policy embedded: grpo, none"
    )
    assert not (tmp_path / "results" / "runs").exists()  # nothing written


def test_learn_loop_summary_has_the_oracle_only_when_asked(tmp_path: Path, shared_kg: Path) -> None:
    import os

    from codreamer.commands.runner import SUMMARY_ORACLE_MAX_EMAILS
    from codreamer.graph.store import GraphStore
    from codreamer.models import Scenario
    from codreamer.train.oracle import oracle

    graph = shared_kg / "synthetic-data-16.json"
    env = {**os.environ, "CODREAMER_RESULTS_DIR": str(tmp_path / "results")}
    # Depth 1: few walks, so the summary's capped search stays within its cap.
    cmd = codreamer_argv("learn-loop", "1", "1", "--json")
    cmd += ["--group-size", "2", "--graph", str(graph)]
    rewards = []
    for extra in ([], ["--oracle"]):
        out = subprocess.run(
            cmd + extra, cwd=REPO, env=env, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr
        rewards.append(json.loads(out.stdout.strip().splitlines()[-1])["oracle_reward"])
    meta = json.loads(next((tmp_path / "results" / "runs").glob("*/meta.json")).read_text())
    scenario = Scenario.model_validate(meta["config"]["scenario"])
    store = GraphStore.from_json(json.loads(graph.read_text()))
    assert rewards == [
        None,
        oracle(store, scenario, 1, max_emails=SUMMARY_ORACLE_MAX_EMAILS).reward,
    ]


def test_learn_loop_imports_no_server_or_terminal_stack(tmp_path: Path) -> None:
    # A CLI run needs NumPy, Jinja2 and pydantic; not the API's stack, an HTTP client
    # (no webhook receiver set), Rich (no terminal) or networkx: each costs start time.
    probe = (
        "import sys\n"
        "from codreamer.cli import app\n"
        "try:\n"
        "    app(['learn-loop', '1', '1', '--group-size', '2', '--json'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "heavy = [m for m in ('fastapi', 'starlette', 'uvicorn', 'httpx', 'rich', 'networkx',\n"
        "                     'openai', 'art', 'weave', 'redis', 'celery') if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    import os

    env = {**os.environ, "CODREAMER_RESULTS_DIR": str(tmp_path / "results")}
    env.pop("FRONTEND_URL", None)
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "HEAVY=\n" in out.stdout, out.stdout


def test_evaluate_prints_each_prospect_s_email(tmp_path: Path, shared_kg: Path) -> None:
    """A run on a graph of one's own with two prospects and none held out: `evaluate`
    reports on the training prospects and prints each one's email."""
    import os

    env = {**os.environ, "CODREAMER_RESULTS_DIR": str(tmp_path / "results")}
    cmd = codreamer_argv("learn-loop", "2", "--json", "--group-size", "4")
    prospects = json.loads(
        (REPO / "benchmarks" / "prospects" / "synthetic-data-16.json").read_text()
    )
    two = tmp_path / "two.json"
    two.write_text(json.dumps(prospects["train"][:2]))
    cmd += ["--graph", str(shared_kg / "synthetic-data-16.json"), "--scenario", str(two)]
    out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    run_id = json.loads(out.stdout.strip().splitlines()[-1])["run_id"]
    cmd = codreamer_argv("evaluate", "--run", run_id)
    out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("2 training scenarios  mean reward ")
    assert out.stdout.count("\nSubject: ") == 2
    assert "Nadia" in out.stdout and "Jonas" in out.stdout


def test_iterations_and_depth_are_options_as_well_as_positionals(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "CODREAMER_RESULTS_DIR": str(tmp_path / "results")}
    env.pop("FRONTEND_URL", None)
    base = codreamer_argv("learn-loop", "--group-size", "2", "--json")
    out = subprocess.run(
        [*base, "--iterations", "2", "--depth", "3"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    meta = json.loads((Path(summary["results_path"]) / "meta.json").read_text())
    assert (meta["config"]["iterations"], meta["config"]["depth"]) == (2, 3)
    assert [m["iteration"] for m in summary["iterations"]] == [0, 1, 2]
    clash = subprocess.run(
        [*base, "2", "--iterations", "3"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert clash.returncode == 2
    assert "iterations given twice (2 and --iterations 3)" in clash.stderr
    bad = subprocess.run(
        [*base, "--iterations", "51"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "invalid iterations" in bad.stderr, bad.stderr


def test_version() -> None:
    from codreamer import __version__

    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"codreamer {__version__}"


HELP_PAGES = [
    [], ["learn-loop"], ["judge"], ["demo"], ["oracle"], ["evaluate"], ["api"], ["serve"],
    ["web"], ["worker"], ["write"], ["graph", "validate"], ["webhooks", "dispatch"],
    ["prompts", "show"], ["runs", "prune"], ["agents", "show"],
]  # fmt: skip


@pytest.mark.parametrize("page", HELP_PAGES, ids=lambda p: " ".join(p) or "codreamer")
def test_help_reads_plainly(page: list[str]) -> None:
    """No summary cut off, no reference to a file outside the repo, placeholders in
    words, and a default said once."""
    import os

    out = subprocess.run(
        codreamer_argv(*page, "--help"),
        cwd=REPO, env={**os.environ, "COLUMNS": "80"}, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "…" not in text and "DESIGN" not in text, text
    assert "<int" not in text and "<str" not in text and "<list" not in text, text
    assert "<path" not in text and "{" not in text.splitlines()[0], text
    assert "[default:" not in text, text
    for block in text.split("\n  -")[1:]:  # each option's help, said once
        assert block.count("default") <= 1 or "Default by policy" in block, block


def test_learn_loop_help_lists_the_settings_once_with_their_defaults() -> None:
    text = " ".join(run_cli("learn-loop", "--help").stdout.split())
    assert "learn-loop [OPTIONS] [ITERATIONS] [DEPTH]" in text
    assert (
        "--iterations N Learning iterations after the baseline (1-50) (default 3; env NUM_ITERS)."
        in text
    )
    assert "Same as --depth." in text
    assert text.count("The most hops a rollout may walk") == 1
    assert "--policy NAME Who writes: embedded | openai | art (default embedded" in text


def test_hints_print_a_command_that_works_from_here() -> None:
    import os

    probe = "from codreamer.commands.common import cli_command; print(cli_command())"

    def hint(env: dict[str, str]) -> str:
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    shell = {k: v for k, v in os.environ.items() if k != "UV_RUN_RECURSION_DEPTH"}
    bare_path = os.pathsep.join(
        p for p in shell.get("PATH", "").split(os.pathsep)
        if not (Path(p) / "codreamer").exists()
    )  # fmt: skip
    venv_bin = Path(sys.executable).parent
    assert (venv_bin / "codreamer").exists()
    with_venv = f"{venv_bin}{os.pathsep}{bare_path}"
    # A shell without the environment activated: only `uv run` finds it.
    assert hint({**shell, "PATH": bare_path}) == "uv run codreamer"
    # An activated environment: the bare command works.
    assert hint({**shell, "PATH": with_venv}) == "codreamer"
    # Started by `uv run`, which put .venv/bin on its child's PATH, not the user's.
    assert hint({**shell, "PATH": with_venv, "UV_RUN_RECURSION_DEPTH": "1"}) == "uv run codreamer"


def test_oracle_on_a_graph_of_one_s_own_writes_to_the_neutral_reader(
    tmp_path: Path, shared_kg: Path
) -> None:
    own = shared_kg / "synthetic-data-16.json"
    out = run_cli("oracle", "--graph", str(own), "--json", "--max-emails", "200000")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["scenario"] == "neutral-reader"
    assert "Priya" not in found["email"]["body"], found["email"]["body"][:80]
    sample = run_cli("oracle", "--json")  # the default graph: the first sample prospect
    assert sample.returncode == 0, sample.stderr
    first = json.loads((REPO / "data" / "scenarios.json").read_text())[0]
    assert json.loads(sample.stdout)["scenario"] == first["id"]
