"""The graph's edges run clear of its nodes, and its names are whole, on a phone and
on a desktop.

Real API, real dashboard, real Chromium: each graph is uploaded through the form
and drawn as the run starts. The check is geometric, read back from the drawn SVG:
every edge path is sampled along its length, and no sample may lie inside any node's
box (its own two ends included: an edge touches them at their border only).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import launch_browser
from tests.support.dashboard import SIZES, check_layout, click_generate, dashboard_with_api
from tests.support.paths import ARTIFACTS, KG, REPO

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SECRET = "edges-shared-secret"
GRADED = REPO / "benchmarks" / "data" / "graded" / "graphs"

# Samples every path each user unit; a sample more than INSET inside a box is a hit.
EDGE_CHECK_JS = """() => {
  const INSET = 1.5;
  const root = document.querySelector('#graph-view svg.graph-svg');
  if (!root) return { layout: null, nodes: 0, edges: 0, hits: [] };
  const boxes = [];
  for (const g of root.querySelectorAll('g.node')) {
    const m = g.transform.baseVal.consolidate().matrix;
    const r = g.querySelector('rect.box');
    boxes.push({ id: g.dataset.nodeId, x: m.e, y: m.f,
                 w: r.width.baseVal.value, h: r.height.baseVal.value });
  }
  const hits = [];
  const paths = [...root.querySelectorAll('g.edges path.edge')];
  for (const p of paths) {
    const len = p.getTotalLength();
    const seen = new Set();
    for (let s = 0; s <= len; s += 1) {
      const pt = p.getPointAtLength(s);
      for (const b of boxes) {
        if (seen.has(b.id)) continue;
        if (pt.x > b.x + INSET && pt.x < b.x + b.w - INSET
            && pt.y > b.y + INSET && pt.y < b.y + b.h - INSET) {
          seen.add(b.id);
          hits.push(`${p.dataset.source} -> ${p.dataset.target} runs through ${b.id}`
                    + ` at (${pt.x.toFixed(0)}, ${pt.y.toFixed(0)})`);
        }
      }
    }
  }
  const out = (p) => { const b = p.getBBox(); return b.x < -1 || b.y < -1
    || b.x + b.width > root.viewBox.baseVal.width + 1
    || b.y + b.height > root.viewBox.baseVal.height + 1; };
  return { layout: root.classList.contains('rows') ? 'rows' : 'columns', nodes: boxes.length,
           edges: paths.length, hits,
           clipped: paths.filter(out).map((p) => `${p.dataset.source} -> ${p.dataset.target}`),
           cut: [...root.querySelectorAll('text.node-label')]
             .filter((t) => t.textContent.endsWith('…'))
             .map((t) => t.parentNode.dataset.nodeId) };
}"""


def graph_nodes(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    if isinstance(data, dict):
        data = data.get("nodes") or data["graph"]
    nodes: list[dict[str, Any]] = data
    return nodes


def edge_count(nodes: list[dict[str, Any]]) -> int:
    ids = {n["id"] for n in nodes}
    pairs = {
        (n["id"], e.get("target") or e.get("target_id"))
        for n in nodes
        for e in n.get("edges") or n.get("edge") or []
    }
    return len({(s, t) for s, t in pairs if t in ids and s != t})


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("edges")
    with dashboard_with_api(home, SECRET) as (url, api):
        yield url


# The layout each graph gets at 1,280 px: 16 nodes fit as columns; 61 would be too
# small to read as columns and wrap into rows. A phone always gets rows.
@pytest.mark.parametrize(
    ("graph", "desktop"),
    [
        (REPO / "data" / "graph.json", "columns"),
        (KG / "synthetic-data-16.json", "columns"),
        # Edges inside its last column: they loop out to its right, inside the drawing.
        (GRADED / "warehouse-picking.json", "columns"),
        (GRADED / "topic-60.json", "rows"),
    ],
    ids=["sample", "synthetic-data-16", "warehouse-picking", "topic-60"],
)
def test_edges_clear_of_nodes(browser: Any, dashboard: str, graph: Path, desktop: str) -> None:
    nodes = graph_nodes(graph)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(60_000)
    try:
        page.goto(dashboard + "/")
        page.wait_for_selector("#backend-pill:has-text('connected')")
        page.set_input_files("#graph-file", str(graph))
        page.fill("#iterations", "1")
        click_generate(page)
        # Drawn as the run starts, before any email: every node, every edge.
        page.wait_for_selector(f"svg.graph-svg g.node >> nth={len(nodes) - 1}")
        ARTIFACTS.mkdir(exist_ok=True)
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            # The page lays the graph out again after a resize: wait for this width's.
            page.wait_for_function(
                "() => { const v = document.querySelector('#graph-view');"
                " const s = v.querySelector('svg.graph-svg');"
                " return s && s.dataset.laidOutFor === String(v.clientWidth); }"
            )
            check_layout(page, len(nodes))
            info = page.evaluate(EDGE_CHECK_JS)
            where = f"{graph.name} at {width}x{height} ({info['layout']})"
            assert info["nodes"] == len(nodes), where
            assert info["edges"] == edge_count(nodes), f"{where}: {info['edges']} edges drawn"
            assert not info["hits"], f"{where}: {info['hits'][:6]}"
            assert not info["clipped"], f"{where}: edges cut off {info['clipped']}"
            # Names wrap onto as many lines as they need; none is cut short.
            assert not info["cut"], f"{where}: node names cut {info['cut']}"
            assert info["layout"] == ("rows" if width < 600 else desktop), where
            page.locator("#graph-view").screenshot(
                path=str(ARTIFACTS / f"edges-{graph.stem}-{width}x{height}.png")
            )
    finally:
        page.close()
