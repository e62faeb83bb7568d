from __future__ import annotations

import re
from pathlib import Path

import pytest

from codreamer.agent.compose import (
    ALL_STYLES,
    DEFAULT_SENDER,
    DEFAULT_STYLE,
    N_CTAS,
    N_OPENINGS,
    N_SUBJECTS,
    EmailStyle,
    compose_email,
    goal_object,
    rationale_clause,
    shortest_path,
)
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_graph, load_scenarios
from codreamer.models import Prospect, Scenario, Sender


@pytest.fixture(scope="module")
def store(repo_root: Path) -> GraphStore:
    return load_graph(repo_root / "data" / "graph.json")


@pytest.fixture(scope="module")
def scenario(repo_root: Path) -> Scenario:
    return load_scenarios(repo_root / "data" / "scenarios.json")[0]


PLACEHOLDER = re.compile(r"\[[^\]]*\]|\{\{|\}\}|<[A-Z_]+>|TODO|None\b|undefined")


def test_style_space() -> None:
    assert len(ALL_STYLES) == N_SUBJECTS * N_OPENINGS * N_CTAS == 18
    with pytest.raises(ValueError):
        EmailStyle(subject=N_SUBJECTS)
    with pytest.raises(ValueError):
        EmailStyle(cta=-1)


def test_good_email_reads_like_an_email(store: GraphStore, scenario: Scenario) -> None:
    path = shortest_path(store)
    assert path == ["Customer Job", "Temperature Excursions", "Product Feature"]
    email = compose_email(store, path, scenario, DEFAULT_STYLE)
    assert email.citations == path
    body = email.body
    assert body.startswith("Hi Priya,\n\n")
    assert "Northfield Dairy" in body and "Northfield Dairy" in email.subject
    for nid in path:  # every cited node's content is in the body
        assert store.content(nid) in body
    assert "Would you be open to a 20-minute discovery call?" in body
    assert body.endswith(f"Best regards,\n{DEFAULT_SENDER.name}")
    assert "\n\n\n" not in body
    assert not PLACEHOLDER.search(body + email.subject)


def test_every_style_and_path_is_clean(store: GraphStore, scenario: Scenario) -> None:
    paths = store.paths_to_features(max_hops=6) + [["Customer Job", "Driver Turnover"]]
    for path in paths:
        for style in ALL_STYLES:
            e = compose_email(store, path, scenario, style)
            assert e.subject and e.body
            assert not PLACEHOLDER.search(e.body + e.subject), (path, style)
            assert "\n\n\n" not in e.body
            assert e.body.endswith(DEFAULT_SENDER.name)


def test_signed_by_the_sender(store: GraphStore, scenario: Scenario) -> None:
    sender = Sender(name="Dana Whitfield", company="Frostline", title="Account Executive")
    e = compose_email(store, shortest_path(store), scenario, DEFAULT_STYLE, sender)
    assert e.body.endswith("Best regards,\nDana Whitfield\nAccount Executive, Frostline")
    assert DEFAULT_SENDER.name not in e.body


def test_styles_differ(store: GraphStore, scenario: Scenario) -> None:
    path = shortest_path(store)
    emails = {s: compose_email(store, path, scenario, s) for s in ALL_STYLES}
    assert len({e.subject for e in emails.values()}) == N_SUBJECTS
    assert len({e.body for e in emails.values()}) == N_OPENINGS * N_CTAS
    generic = emails[EmailStyle(1, 2, 1)]
    assert generic.body.startswith("Hello,")
    assert "Priya" not in generic.body and "Northfield" not in generic.body
    assert "?" not in generic.body  # the statement call to action
    assert len(emails[EmailStyle(2, 0, 0)].subject.split()) > 12


def test_path_without_product_feature(store: GraphStore, scenario: Scenario) -> None:
    e = compose_email(store, ["Customer Job", "Margin Pressure", "Seasonal Demand Peaks"], scenario)
    assert "This is where we can help" not in e.body
    assert "how other teams are tackling this" in e.body
    assert store.content("Seasonal Demand Peaks") in e.body
    only_cj = compose_email(store, ["Customer Job"], scenario)
    assert store.content("Customer Job") in only_cj.body


def test_prospect_without_company_or_known_goal_verb(store: GraphStore) -> None:
    sc = Scenario(prospect=Prospect(name="Kim"), goal="Share our benchmark results")
    e = compose_email(store, shortest_path(store), sc)
    assert e.body.startswith("Hi Kim,")
    assert "your work" in e.body
    assert "share our benchmark results?" in e.body
    assert "None" not in e.body + e.subject


def test_reference_graph_email(shared_kg: Path, scenario: Scenario) -> None:
    store = load_graph(shared_kg / "synthetic-data-16.json")
    path = shortest_path(store)
    assert len(path) == 5
    e = compose_email(store, path, scenario)
    assert "This node" not in e.body  # meta rationales are dropped
    assert store.content("Product Feature") in e.body


def test_helpers() -> None:
    assert goal_object("Secure a 20-minute discovery call") == "a 20-minute discovery call"
    assert goal_object("Set up a pilot on five trucks.") == "a pilot on five trucks"
    assert goal_object("Share results") == ""
    assert rationale_clause("This node explores things.") == ""
    long = "Because the delivery fleet is large today, and because " + "very " * 30 + "busy."
    assert rationale_clause(long) == "Because the delivery fleet is large today."
    assert rationale_clause("Too short, then " + "word " * 30) == ""  # no readable clause
    assert rationale_clause("Short reason; more detail") == "Short reason."


def test_deterministic(store: GraphStore, scenario: Scenario) -> None:
    path = store.paths_to_features()[-1]
    assert compose_email(store, path, scenario) == compose_email(store, path, scenario)
