"""The sender (DESIGN §2): from settings, the API body or the CLI, down to the email."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from codreamer.api.app import create_app
from codreamer.api.schemas import LearnLoopRequest
from codreamer.api.service import Catalog, config_from_request
from codreamer.config import Settings
from codreamer.models import Sender
from tests.support.cli import codreamer_argv
from tests.support.paths import REPO


def test_settings_give_the_default_sender(clean_llm_env: None) -> None:
    s = Settings(CODREAMER_SENDER_NAME="Dana Whitfield", CODREAMER_SENDER_COMPANY="Frostline")
    assert s.sender == Sender(name="Dana Whitfield", company="Frostline")
    assert Settings().sender.name  # never empty: no email needs a placeholder


def test_the_request_sender_wins_over_settings(clean_llm_env: None, tmp_path: Path) -> None:
    settings = Settings(
        CODREAMER_RESULTS_DIR=tmp_path,
        CODREAMER_DATA_DIR=REPO / "data",
        CODREAMER_SENDER_NAME="Dana Whitfield",
    )
    catalog = Catalog(settings)
    store = catalog.default_graph()
    default = config_from_request(LearnLoopRequest(), settings, catalog, store)
    assert default.sender.name == "Dana Whitfield"
    req = LearnLoopRequest.model_validate({"sender": {"name": "Lee Ortiz", "title": "AE"}})
    assert config_from_request(req, settings, catalog, store).sender == Sender(
        name="Lee Ortiz", title="AE"
    )


@pytest.mark.parametrize(
    ("sender", "where"),
    [({"name": ""}, "body.sender.name"), ({"name": "A", "phone": "1"}, "body.sender.phone")],
)
def test_a_bad_sender_is_named(tmp_path: Path, sender: dict, where: str) -> None:
    client = TestClient(
        create_app(Settings(CODREAMER_RESULTS_DIR=tmp_path)), base_url="http://localhost"
    )
    r = client.post("/learn-loop", json={"sender": sender})
    assert r.status_code == 422, r.text
    assert where in [p["where"] for p in r.json()["problems"]]
    assert not list(tmp_path.iterdir())


def test_the_cli_run_signs_with_the_sender(tmp_path: Path) -> None:
    out = subprocess.run(
        codreamer_argv(
            "learn-loop",
            "1",
            "2",
            "--group-size",
            "4",
            "--sender-name",
            "Dana Whitfield",
            "--sender-company",
            "Frostline",
            "--json",
        ),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin",
            "CODREAMER_DATA_DIR": str(REPO / "data"),
            "HOME": str(tmp_path),
        },
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["final_email"]["body"].endswith("Dana Whitfield\nFrostline")
    meta = json.loads((tmp_path / summary["results_path"] / "meta.json").read_text())
    assert meta["config"]["sender"] == {
        "name": "Dana Whitfield",
        "company": "Frostline",
        "title": None,
    }


def test_the_sender_reaches_the_judge_in_a_run(tmp_path: Path) -> None:
    """The judge tells a sender who shares the prospect's name from an email signed
    with the prospect's name only if it is told who sends: dropped anywhere on the
    run's path, every email signed 'Priya Natarajan' to Priya is marked confused."""
    out = subprocess.run(
        codreamer_argv("learn-loop", "1", "2", "--group-size", "4",
         "--scenario", "northfield-dairy-ops", "--sender-name", "Priya Natarajan", "--json"),
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "CODREAMER_DATA_DIR": str(REPO / "data"),
             "HOME": str(tmp_path)},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    run = tmp_path / summary["results_path"]
    reasons = []
    for line in (run / "iter1_step2_groups.jsonl").read_text().splitlines():
        for traj in json.loads(line)["trajectories"]:
            reasons.append(traj["judgement"]["criteria"]["sendability"]["reason"])
    for name in ("iter0_email.json", "iter1_email.json"):
        judged = json.loads((run / name).read_text())["judgement"]
        reasons.append(judged["criteria"]["sendability"]["reason"])
    assert reasons and all("Priya Natarajan" in summary["final_email"]["body"] for _ in [0])
    assert not [r for r in reasons if "confused" in r], reasons


def test_the_sender_reaches_the_judge_command(tmp_path: Path) -> None:
    body = (
        "Hi Priya,\n\nFrostline alerts dispatch the moment a load drifts.\n\n"
        "Would you be open to a 20-minute call?\n\nBest,\nPriya Natarajan"
    )
    email = {"subject": "Reefer alerts", "citations": ["Customer Job", "Product Feature"],
             "body": body}  # fmt: skip
    (tmp_path / "e.jsonl").write_text(json.dumps(email) + "\n")

    def reason(*extra: str) -> str:
        out = subprocess.run(
            codreamer_argv("judge", str(tmp_path / "e.jsonl"),
             "--scenario", "northfield-dairy-ops", "--json", *extra),
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
            env={"PATH": "/usr/bin:/bin", "CODREAMER_DATA_DIR": str(REPO / "data"),
                 "HOME": str(tmp_path)},
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])["criteria"]["sendability"]["reason"]

    assert "confused" in reason("--sender-name", "Sam Carter")
    assert "confused" not in reason("--sender-name", "Priya Natarajan")
