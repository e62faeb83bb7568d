"""RunSpec: each run setting declared once and resolved once (given > environment >
default), the API and the CLI building configs the same way, and runs written before
RunSpec (group_size and seed inside `grpo`) still loading and resuming to the same
files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from codreamer.api.schemas import LearnLoopRequest
from codreamer.api.service import Catalog, config_from_request
from codreamer.commands.runner import LoopRequest, config_from_cli
from codreamer.config import Settings
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_scenarios
from codreamer.loop.config import LoopConfig
from codreamer.loop.learn_loop import run_learn_loop
from codreamer.loop.local import new_local_run
from codreamer.runs.spec import RunSpec
from codreamer.store.files import read_json
from codreamer.store.meta import update_meta
from tests.support.paths import REPO


def _settings(tmp_path: Path, **env: str) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        CODREAMER_RESULTS_DIR=str(tmp_path / "results"),
        CODREAMER_DATA_DIR=str(REPO / "data"),
        **env,
    )


def test_given_beats_environment_beats_default(tmp_path: Path) -> None:
    bare = RunSpec.resolve({}, _settings(tmp_path))
    assert (bare.iterations, bare.depth, bare.group_size, bare.seed) == (3, 5, 16, 0)
    assert (bare.policy, bare.trainer, bare.judge) == ("embedded", "grpo", "rubric")
    env = _settings(tmp_path, NUM_ITERS="7", DEPTH="4", CODREAMER_SENDER_NAME="Ana Ruiz")
    from_env = RunSpec.resolve({"depth": None}, env)
    assert (from_env.iterations, from_env.depth, from_env.sender.name) == (7, 4, "Ana Ruiz")
    given = RunSpec.resolve({"iterations": 2, "depth": 9}, env)
    assert (given.iterations, given.depth) == (2, 9)


@pytest.mark.parametrize(
    ("given", "field"),
    [({"depth": 13}, "depth"), ({"depth": 0}, "depth"), ({"group_size": 1}, "group_size"),
     ({"iterations": 51}, "iterations"), ({"seed": -1}, "seed")],
)  # fmt: skip
def test_out_of_bounds_is_named(tmp_path: Path, given: dict, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        RunSpec.resolve(given, _settings(tmp_path))
    assert err.value.errors()[0]["loc"] == (field,)


def test_a_bad_environment_value_is_named_too(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as err:
        RunSpec.resolve({}, _settings(tmp_path, DEPTH="40"))
    assert err.value.errors()[0]["loc"] == ("depth",)


def test_api_body_and_cli_build_the_same_config(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    store = GraphStore.from_json(json.loads(settings.default_graph_path.read_text()))
    body = LearnLoopRequest(iterations=2, depth=4, group_size=8, seed=3)
    from_api = config_from_request(body, settings, Catalog(settings), store)
    _, from_cli = config_from_cli(
        LoopRequest(settings={"iterations": 2, "depth": 4, "group_size": 8, "seed": 3}), settings
    )
    assert from_api.model_dump() == from_cli.model_dump()
    assert (from_api.group_size, from_api.seed) == (8, 3)
    assert "group_size" not in from_api.grpo.model_dump()


def test_a_run_written_before_runspec_loads_and_resumes_to_the_same_files(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path)
    store = GraphStore.from_json(json.loads(settings.default_graph_path.read_text()))
    scenario = load_scenarios(settings.scenarios_path)[0]
    config = RunSpec(iterations=2, depth=4, group_size=6, seed=5).loop_config([scenario])
    ref = new_local_run(settings, store, config)
    assert run_learn_loop(ref, settings=settings).status == "succeeded"

    old = new_local_run(settings, store, config)
    meta = read_json(old.meta)
    cfg = meta["config"]
    cfg["grpo"] = {**cfg["grpo"], "group_size": cfg.pop("group_size"), "seed": cfg.pop("seed")}
    old.meta.write_text(json.dumps(meta))  # the layout of runs written before RunSpec
    assert LoopConfig.model_validate(cfg) == config
    # Killed after iteration 1: the later files are missing, the status says running.
    assert run_learn_loop(old, settings=settings).status == "succeeded"
    for late in [*old.dir.glob("iter2_*"), old.final_email]:
        late.unlink()
    update_meta(old, status="running")
    assert run_learn_loop(old, settings=settings).status == "succeeded"

    compared = 0
    for f in sorted(ref.dir.glob("iter*")) + [ref.final_email]:
        assert (old.dir / f.name).read_bytes() == f.read_bytes(), f.name
        compared += 1
    assert compared >= 3 * 4
