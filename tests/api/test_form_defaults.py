"""One default for each run setting everywhere: the API's OpenAPI document publishes
RunSpec's defaults, and the dashboard's form takes its own from there (it declared
2 iterations while the CLI ran 3)."""

from __future__ import annotations

from pathlib import Path

from codreamer.api.app import create_app
from codreamer.config import Settings
from codreamer.runs.spec import RunSpec
from web.limits import FALLBACK, form_limits


def test_the_form_s_defaults_are_the_run_spec_s(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, CODREAMER_RESULTS_DIR=str(tmp_path))  # type: ignore[call-arg]
    openapi = create_app(settings).openapi()
    limits = form_limits(openapi)
    assert limits["source"] == "backend"
    for name in ("iterations", "depth", "group_size"):
        spec = RunSpec.model_fields[name]
        assert limits["numbers"][name]["default"] == spec.default, name
        assert FALLBACK[name]["default"] == spec.default, name  # when the API is away
    props = openapi["components"]["schemas"]["LearnLoopRequest"]["properties"]
    assert props["policy"]["default"] == "embedded"
    assert props["trainer"].get("default") is None  # by policy: no single default
