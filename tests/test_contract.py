"""The backend's webhook payload and the dashboard's receiver model accept the same JSON.

The two packages deploy separately and share no code, so this test is what keeps
`codreamer.models.WebhookPayload` and `web.models.WebhookPayload` in step.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codreamer.config import Settings
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_scenarios
from codreamer.loop.learn_loop import run_learn_loop
from codreamer.loop.local import new_local_run
from codreamer.models import WebhookPayload as BackendPayload
from codreamer.runs.spec import RunSpec
from tests.support.paths import REPO
from web.models import WebhookPayload as ReceiverPayload


def test_field_names_and_required_fields_match() -> None:
    backend = BackendPayload.model_json_schema()
    receiver = ReceiverPayload.model_json_schema()
    assert set(backend["properties"]) == set(receiver["properties"])
    assert set(backend.get("required", [])) == set(receiver.get("required", []))


def test_payloads_from_a_real_run_validate_in_the_receiver(tmp_path: Path) -> None:
    settings_ = Settings(CODREAMER_RESULTS_DIR=tmp_path, CODREAMER_DATA_DIR=REPO / "data")
    store = GraphStore.from_json(json.loads((REPO / "data" / "graph.json").read_text()))
    scenario = load_scenarios(REPO / "data" / "scenarios.json")[0]
    config = RunSpec(iterations=2, depth=4).loop_config([scenario])
    sent: list[BackendPayload] = []
    run_learn_loop(
        new_local_run(settings_, store, config), on_webhook=sent.append, settings=settings_
    )
    assert [p.stage for p in sent] == ["baseline", "iteration", "iteration", "final"]
    for p in sent:
        wire = p.model_dump_json()
        got = ReceiverPayload.model_validate_json(wire)
        assert got.run_id == p.run_id and got.stage == p.stage and got.iteration == p.iteration
        assert got.final_email.model_dump() == p.final_email.model_dump()
        assert got.node_scores == p.node_scores and got.metrics == p.metrics


def test_the_design_appendix_payload_validates_in_both() -> None:
    body = {
        "run_id": "api-20251012-130015-cb9af9",
        "final_email": {
            "subject": "Quick note: Secure a 20-minute discovery call",
            "body": "Generates high quality synthetic data...\n\nGoal: Secure a discovery call",
            "citations": ["Customer Job", "Process for Quality Validation", "Product Feature"],
        },
        "node_scores": {"Customer Job": 0.7204355040000002, "Product Feature": 0.86244},
    }
    BackendPayload.model_validate(body)
    ReceiverPayload.model_validate(body)


_ids = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=30)
_payloads = st.builds(
    BackendPayload,
    run_id=st.from_regex(r"api-20[0-9]{6}-[0-9]{6}-[0-9a-f]{6}", fullmatch=True),
    stage=st.sampled_from(["baseline", "iteration", "final"]),
    iteration=st.integers(0, 50),
    iterations=st.integers(1, 50),
    final_email=st.builds(
        dict,
        subject=st.text(max_size=80),
        body=st.text(max_size=400),
        citations=st.lists(_ids, max_size=6),
    ),
    node_scores=st.dictionaries(_ids, st.floats(0, 1), max_size=20),
    metrics=st.dictionaries(
        st.sampled_from(["mean", "max", "min", "median", "greedy_reward"]), st.floats(0, 1)
    ),
)


@settings(max_examples=150, deadline=None)
@given(_payloads)
def test_any_backend_payload_round_trips_through_the_receiver(payload: BackendPayload) -> None:
    got = ReceiverPayload.model_validate_json(payload.model_dump_json())
    back = BackendPayload.model_validate_json(got.model_dump_json())
    assert back.model_dump(exclude={"created_at"}) == payload.model_dump(exclude={"created_at"})


@pytest.mark.parametrize("missing", ["run_id", "final_email", "node_scores"])
def test_both_sides_reject_the_same_missing_fields(missing: str) -> None:
    body = {"run_id": "r", "final_email": {"subject": "s", "body": "b"}, "node_scores": {}}
    del body[missing]
    with pytest.raises(ValueError):
        BackendPayload.model_validate(body)
    with pytest.raises(ValueError):
        ReceiverPayload.model_validate(body)
