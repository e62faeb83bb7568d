"""The graph store on the reference graphs beside the checkout and on data/graph.json."""

from __future__ import annotations

from pathlib import Path

import pytest

from codreamer.errors import DataFileError, UnknownNodeError
from codreamer.graph.store import GraphStore
from codreamer.loaders import load_graph

SYNTH = "synthetic-data-16.json"
WEAVE = "weave-feedback-5.json"


@pytest.fixture(scope="module")
def synth(shared_kg: Path) -> GraphStore:
    return load_graph(shared_kg / SYNTH)


@pytest.fixture(scope="module")
def weave(shared_kg: Path) -> GraphStore:
    return load_graph(shared_kg / WEAVE)


def test_reference_graphs_load_with_expected_counts(synth: GraphStore, weave: GraphStore) -> None:
    assert (len(weave), weave.edge_count) == (5, 4)
    assert (len(synth), synth.edge_count) == (16, 44)


def test_paths_to_features(synth: GraphStore, weave: GraphStore) -> None:
    paths = synth.paths_to_features(max_hops=6)
    assert len(paths) == 8
    assert min(len(p) - 1 for p in paths) == 4
    assert all(p[0] == "Customer Job" and p[-1] == "Product Feature" for p in paths)
    assert all(len(set(p)) == len(p) for p in paths)  # simple
    assert len(weave.paths_to_features(max_hops=6)) == 1
    assert weave.paths_to_features(max_hops=3) == []


def test_hops_to_feature(synth: GraphStore, weave: GraphStore) -> None:
    assert synth.hops_to_feature("Customer Job") == 4
    assert synth.hops_to_feature("Product Feature") == 0
    assert weave.hops_to_feature("Customer Job") == 4
    assert weave.hops_to_feature("Annotation Guideline Management") == 1
    with pytest.raises(UnknownNodeError):
        synth.hops_to_feature("nope")


def test_out_neighbours_carry_relationship_and_rationale(weave: GraphStore) -> None:
    (nb,) = weave.out_neighbours("Customer Job")
    assert nb.id == "Process for Quality Validation"
    assert nb.relationship == "has process"
    assert nb.rationale.startswith("The company's claim")
    assert weave.out_neighbours("Product Feature") == []


def test_k_hop_subgraph(weave: GraphStore, synth: GraphStore) -> None:
    sub = weave.k_hop_subgraph("Customer Job", 2)
    assert set(sub.nodes) == {
        "Customer Job",
        "Process for Quality Validation",
        "Human-in-the-Loop Workflow",
    }
    assert sub.number_of_edges() == 2
    assert set(weave.k_hop_subgraph("Customer Job", 0).nodes) == {"Customer Job"}
    assert len(synth.k_hop_subgraph("Customer Job", 10)) == 16


def test_digest_is_stable(shared_kg: Path) -> None:
    assert load_graph(shared_kg / SYNTH).digest() == load_graph(shared_kg / SYNTH).digest()
    assert load_graph(shared_kg / SYNTH).digest() != load_graph(shared_kg / WEAVE).digest()


def test_sample_graph(repo_root: Path) -> None:
    store = load_graph(repo_root / "data" / "graph.json")
    assert 12 <= len(store) <= 25
    lengths = {len(p) - 1 for p in store.paths_to_features(max_hops=6)}
    assert {2, 3, 4} <= lengths
    dead_ends = [n for n in store.nodes if not store.out_neighbours(n)]
    assert len(dead_ends) >= 2
    assert sum(store.verification(n) is not None for n in store.nodes) >= 2


def test_load_graph_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="missing.json"):
        load_graph(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DataFileError, match=r"bad\.json.*not valid JSON"):
        load_graph(bad)


def test_predecessors_match_the_networkx_graph_without_building_it(synth: GraphStore) -> None:
    fresh = GraphStore(synth.nodes.values())
    got = {n: sorted(fresh.predecessors(n)) for n in fresh.nodes}
    assert "graph" not in fresh.__dict__  # the networkx view was never built
    assert got == {n: sorted(synth.graph.predecessors(n)) for n in synth.nodes}
    assert any(got.values())
