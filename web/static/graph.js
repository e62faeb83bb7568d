// The knowledge graph: a layered SVG when edges are known, a plain scored list otherwise.
import { clamp01, el, nodeAnchor, scoreColour, svg, truncate } from './dom.js';

const BOX_W = 196;
const BOX_H = 76;
const COL_GAP = 64;
const ROW_GAP = 14;
const MAX_ROWS = 12; // a taller layer wraps into sub-columns so 60 nodes stay readable
const MARGIN = 16;
const TOP = 46; // room above the first row for back edges to arc
const BAR_W = 118;
const LABEL_CHARS = 23;

// Columns by BFS depth from "Customer Job" (then any other unreached roots), rows
// ordered by the mean row of each node's parents so edges cross less.
export function layout(ids, edges) {
  const known = new Set(ids);
  const succ = new Map(ids.map((id) => [id, []]));
  const pred = new Map(ids.map((id) => [id, []]));
  for (const e of edges) {
    if (known.has(e.source) && known.has(e.target) && e.source !== e.target) {
      succ.get(e.source).push(e.target);
      pred.get(e.target).push(e.source);
    }
  }
  const roots = [
    ...ids.filter((id) => id === 'Customer Job'),
    ...ids.filter((id) => id !== 'Customer Job' && pred.get(id).length === 0),
    ...ids,
  ];
  const depth = new Map();
  for (const root of roots) {
    if (depth.has(root)) continue;
    // Every unreached part of the graph starts again from the first column.
    depth.set(root, 0);
    const queue = [root];
    while (queue.length) {
      const cur = queue.shift();
      for (const next of succ.get(cur)) {
        if (!depth.has(next)) {
          depth.set(next, depth.get(cur) + 1);
          queue.push(next);
        }
      }
    }
  }
  // The argument runs from "Customer Job" to "Product Feature": keep the latter last.
  if (depth.has('Product Feature')) {
    const others = [...depth].filter(([id]) => id !== 'Product Feature').map(([, d]) => d);
    depth.set('Product Feature', others.length ? Math.max(...others) + 1 : 0);
  }
  const layers = [];
  for (const id of ids) {
    const d = depth.get(id);
    (layers[d] ||= []).push(id);
  }
  const row = new Map();
  const columns = [];
  for (const layer of layers.filter(Boolean)) {
    const keyed = layer.map((id, i) => {
      const parents = pred.get(id).filter((p) => row.has(p));
      const bary = parents.length
        ? parents.reduce((s, p) => s + row.get(p), 0) / parents.length : i;
      return { id, bary };
    });
    keyed.sort((a, b) => a.bary - b.bary);
    for (let start = 0; start < keyed.length; start += MAX_ROWS) {
      const chunk = keyed.slice(start, start + MAX_ROWS);
      chunk.forEach((k, r) => row.set(k.id, r));
      columns.push(chunk.map((k) => k.id));
    }
  }
  const tallest = Math.max(1, ...columns.map((c) => c.length));
  const height = TOP + tallest * (BOX_H + ROW_GAP) + MARGIN;
  const pos = new Map();
  const colOf = new Map();
  columns.forEach((col, c) => {
    // Centre shorter columns vertically beside the tallest.
    const offset = ((tallest - col.length) * (BOX_H + ROW_GAP)) / 2;
    col.forEach((id, r) => {
      pos.set(id, { x: MARGIN + c * (BOX_W + COL_GAP), y: TOP + offset + r * (BOX_H + ROW_GAP) });
      colOf.set(id, c);
    });
  });
  const width = MARGIN * 2 + columns.length * (BOX_W + COL_GAP) - COL_GAP;
  return { pos, colOf, width, height };
}

// Up to two lines, broken after '-' or ' ' so generated ids like
// "data-augmentation-techniques-eddc9373" keep their distinguishing suffix.
export function wrapLabel(id) {
  const tokens = String(id).match(/[^\s-]+[\s-]*|[\s-]+/g) || [''];
  const lines = [''];
  for (const tok of tokens) {
    const cur = lines[lines.length - 1];
    if (cur && (cur + tok).trimEnd().length > LABEL_CHARS) {
      if (lines.length === 2) { lines[1] = truncate(`${cur}${tok}`, LABEL_CHARS); return lines; }
      lines.push(tok);
    } else {
      lines[lines.length - 1] = cur + tok;
    }
  }
  return lines.map((l) => truncate(l.trimEnd(), LABEL_CHARS));
}

function edgePath(a, b, kind) {
  if (kind === 'same') {
    // Inside one column: a bracket out to the right side, clear of the boxes.
    const x = a.x + BOX_W; const y1 = a.y + BOX_H / 2; const y2 = b.y + BOX_H / 2;
    const bulge = 22 + Math.min(30, Math.abs(y2 - y1) / 8);
    return `M${x},${y1} C${x + bulge},${y1} ${x + bulge},${y2} ${x},${y2}`;
  }
  if (kind === 'forward') {
    const x1 = a.x + BOX_W; const y1 = a.y + BOX_H / 2;
    const x2 = b.x; const y2 = b.y + BOX_H / 2;
    const dx = Math.max(30, (x2 - x1) / 2);
    return `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
  }
  // Back or same-column edges arc over the top so they don't run through boxes.
  const x1 = a.x + BOX_W / 2; const y1 = a.y;
  const x2 = b.x + BOX_W / 2; const y2 = b.y;
  const lift = Math.min(y1, y2) - 34 - Math.abs(x1 - x2) * 0.05;
  return `M${x1},${y1} C${x1},${lift} ${x2},${lift} ${x2},${y2}`;
}

function nodeTitle(node) {
  const score = node.score === null ? 'no score' : `score ${Number(node.score).toFixed(3)}`;
  return `${node.id} — ${score}${node.content ? `\n${node.content}` : ''}`;
}

export function renderGraphSvg(container, nodes, edges, cited) {
  const ids = nodes.map((n) => n.id);
  const { pos, colOf, width, height } = layout(ids, edges);
  const root = svg('svg', {
    class: 'graph-svg', width, height, viewBox: `0 0 ${width} ${height}`,
    role: 'img', 'aria-label': `Knowledge graph with ${nodes.length} nodes`,
  });
  const defs = svg('defs');
  const marker = svg('marker', {
    // userSpaceOnUse: the same arrow size on thin and thick (cited) edges.
    id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9,
    markerUnits: 'userSpaceOnUse',
    orient: 'auto-start-reverse',
  });
  marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#94a3b8' }));
  defs.append(marker);
  root.append(defs);

  const edgeLayer = svg('g', { class: 'edges' });
  for (const e of edges) {
    const a = pos.get(e.source); const b = pos.get(e.target);
    if (!a || !b || e.source === e.target) continue;
    const dc = colOf.get(e.target) - colOf.get(e.source);
    const kind = dc > 0 ? 'forward' : (dc === 0 && a.x === b.x ? 'same' : 'back');
    const isCited = cited.has(e.source) && cited.has(e.target);
    const path = svg('path', {
      class: `edge${kind === 'back' ? ' back' : ''}${isCited ? ' cited' : ''}`,
      d: edgePath(a, b, kind), 'marker-end': 'url(#arrow)',
    });
    path.append(svg('title', {}, `${e.source} —${e.relationship || ''}→ ${e.target}`));
    edgeLayer.append(path);
  }
  root.append(edgeLayer);

  const nodeLayer = svg('g', { class: 'nodes' });
  for (const node of nodes) {
    const p = pos.get(node.id);
    const score = node.score === null ? null : clamp01(node.score);
    const colour = scoreColour(score ?? 0);
    const g = svg('g', {
      class: `node${cited.has(node.id) ? ' cited' : ''}`, id: nodeAnchor(node.id),
      transform: `translate(${p.x},${p.y})`, 'data-node-id': node.id,
    });
    g.append(svg('title', {}, nodeTitle(node)));
    g.append(svg('rect', { class: 'box', width: BOX_W, height: BOX_H, rx: 9, fill: colour.fill }));
    wrapLabel(node.id).forEach((line, i) => {
      g.append(svg('text', { class: 'node-label', x: 10, y: 19 + i * 16, fill: colour.text }, line));
    });
    g.append(svg('rect', { x: 10, y: 51, width: BAR_W, height: 10, rx: 4, fill: '#ffffff', stroke: '#1e3a8a', 'stroke-width': 0.8 }));
    g.append(svg('rect', { class: 'bar-fill', x: 10, y: 51, width: (BAR_W * (score ?? 0)).toFixed(1), height: 10, rx: 4, fill: '#f59e0b' }));
    g.append(svg('text', { class: 'node-score', x: BAR_W + 18, y: 61, fill: colour.text },
      score === null ? '—' : score.toFixed(2)));
    nodeLayer.append(g);
  }
  root.append(nodeLayer);
  container.replaceChildren(root, legend(true));
}

export function renderNodeList(container, nodes, cited) {
  if (!nodes.length) {
    container.replaceChildren(el('p', { class: 'muted' }, 'No node scores yet.'));
    return;
  }
  const sorted = [...nodes].sort((a, b) => (b.score ?? -1) - (a.score ?? -1));
  const list = el('ul', { class: 'node-list' });
  for (const node of sorted) {
    const score = node.score === null ? null : clamp01(node.score);
    const item = el('li', {
      class: `node-item${cited.has(node.id) ? ' cited' : ''}`, id: nodeAnchor(node.id),
      title: nodeTitle(node), 'data-node-id': node.id,
    });
    const swatch = el('span', { class: 'swatch' });
    swatch.style.background = scoreColour(score ?? 0).fill; // CSSOM: allowed by the CSP
    const bar = el('span', { class: 'bar' });
    const fill = el('span', { class: 'bar-fill' });
    fill.style.width = `${Math.round((score ?? 0) * 100)}%`;
    bar.append(fill);
    item.append(swatch, el('span', { class: 'node-name' }, node.id), bar,
      el('span', { class: 'node-score' }, score === null ? '—' : score.toFixed(2)));
    list.append(item);
  }
  container.replaceChildren(list, legend(false));
}

function legend(withEdges) {
  const box = el('div', { class: 'legend' });
  for (const [label, s] of [['score 0', 0], ['0.5', 0.5], ['1', 1]]) {
    const key = el('span', { class: 'key' });
    key.style.background = scoreColour(s).fill;
    const item = el('span');
    item.append(key, document.createTextNode(label));
    box.append(item);
  }
  box.append(el('span', {}, 'gold outline: cited in the email'));
  if (withEdges) box.append(el('span', {}, 'dashed: edge back to an earlier layer'));
  else box.append(el('span', {}, 'edges unavailable: the backend did not give this run\'s graph'));
  return box;
}

// Merge the webhook's node scores (authoritative, newest) with the backend's graph.
export function renderGraph(container, latest, graph) {
  const scores = (latest && latest.node_scores) || {};
  const cited = new Set((latest && latest.email && latest.email.citations) || []);
  const byId = new Map();
  for (const n of (graph && graph.nodes) || []) {
    byId.set(String(n.id), { id: String(n.id), content: n.content || '', score: n.score ?? null });
  }
  for (const [id, s] of Object.entries(scores)) {
    const node = byId.get(id) || { id, content: '', score: null };
    node.score = s;
    byId.set(id, node);
  }
  const nodes = [...byId.values()];
  const edges = ((graph && graph.edges) || []).map((e) => ({
    source: String(e.source), target: String(e.target), relationship: e.relationship || '',
  }));
  if (edges.length && nodes.length) renderGraphSvg(container, nodes, edges, cited);
  else renderNodeList(container, nodes, cited);
}
