from __future__ import annotations

from codreamer.graph.scores import NodeScores


def test_reconciled_with_graph() -> None:
    s = NodeScores(["a", "b", "c"], {"a": 0.2, "b": 7, "zzz": 0.5, "c": "nan-ish"})
    assert s.snapshot() == {"a": 0.2, "b": 1.0, "c": 0.5}
    assert "zzz" not in s
    assert NodeScores(["a"], {"a": -3}).snapshot() == {"a": 0.0}
    assert NodeScores(["a"], {"a": float("nan")})["a"] == 0.5


def test_new_nodes_start_at_the_neutral_prior_and_uncited_keep_it() -> None:
    s = NodeScores(["cited", "never"])
    assert s.snapshot() == {"cited": 0.5, "never": 0.5}
    s.update([(["cited"], 0.9), (["cited"], 0.2)], step=0.1)
    assert s["never"] == 0.5
    assert abs(s["cited"] - ((0.5 + 0.1 * 0.4) + 0.1 * (0.2 - 0.54))) < 1e-12


def test_update_moves_cited_nodes_toward_reward() -> None:
    s = NodeScores(["a", "b", "c"], {"a": 0.5, "b": 0.5, "c": 0.5})
    s.update([(["a", "b", "a", "unknown"], 1.0)], step=0.1)
    assert s["a"] == 0.55  # once per trajectory even if cited twice
    assert s["b"] == 0.55
    assert s["c"] == 0.5
    s.update([(["c"], -5.0)], step=0.5)  # reward clamped to [0, 1]
    assert s["c"] == 0.25


def test_snapshot_and_copy_are_independent() -> None:
    s = NodeScores(["a"], {"a": 0.5})
    snap = s.snapshot()
    twin = s.copy()
    s.update([(["a"], 1.0)], step=0.5)
    assert snap == {"a": 0.5}
    assert twin["a"] == 0.5
    assert s["a"] == 0.75
