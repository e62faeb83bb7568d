// The knowledge graph: a layered SVG when edges are known, a plain scored list otherwise.
//
// Layers are BFS depths from "Customer Job" ("Product Feature" last). A wide container
// draws layers as columns, left to right, scaled down to fit if need be; a narrow one
// (a phone) draws them as rows, top to bottom, each row wrapped to the container's
// width, so every node stays on screen and readable without horizontal scrolling.
import { colourScale, el, nodeAnchor, svg, truncate } from './dom.js';
import { columnRoutes, roundedPath } from './routes.js';

const MARGIN = 12;
// Columns layout (wide screens).
const COL = { boxW: 184, boxH: 80, gapX: 52, gapY: 12, maxRows: 12, top: 40 };
// Rows layout (narrow screens).
// Gutters at both sides carry the edges that skip a row (right) or go back up (left),
// so no edge runs behind a node.
const ROW = { minBoxW: 132, maxBoxW: 220, boxH: 76, gapX: 10, gapY: 34, gutter: 20, gutterR: 16, maxPerRow: 4 };
const MAX_LABEL_LINES = 3;
const LINE_H = 15; // label line spacing
// How many label lines a box of height h holds above its score bar.
const linesFor = (h) => Math.max(1, Math.floor((h - 29) / LINE_H));
// Below this scale the columns layout is unreadable: switch to rows.
const MIN_SCALE = 0.72;
const CHAR_PX = 7.6; // average width of a 12.5 px bold label character

// Depth of each node: BFS from "Customer Job", then from any other unreached root.
export function layers(ids, edges) {
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
  const out = [];
  for (const id of ids) (out[depth.get(id)] ||= []).push(id);
  // Order each layer by its parents' mean position so edges cross less.
  const order = new Map();
  const result = [];
  for (const layer of out.filter(Boolean)) {
    const keyed = layer.map((id, i) => {
      const parents = pred.get(id).filter((p) => order.has(p));
      const bary = parents.length ? parents.reduce((s, p) => s + order.get(p), 0) / parents.length : i;
      return { id, bary };
    });
    keyed.sort((a, b) => a.bary - b.bary);
    keyed.forEach((k, i) => order.set(k.id, i));
    result.push(keyed.map((k) => k.id));
  }
  return result;
}

// Layers as columns (tall layers wrap into sub-columns).
function columnsGeometry(layerList, edges) {
  const columns = [];
  for (const layer of layerList) {
    for (let s = 0; s < layer.length; s += COL.maxRows) columns.push(layer.slice(s, s + COL.maxRows));
  }
  const tallest = Math.max(1, ...columns.map((c) => c.length));
  const height = COL.top + tallest * (COL.boxH + COL.gapY) + MARGIN;
  const pos = new Map();
  columns.forEach((col, c) => {
    const offset = ((tallest - col.length) * (COL.boxH + COL.gapY)) / 2;
    col.forEach((id, r) => pos.set(id, {
      x: MARGIN + c * (COL.boxW + COL.gapX), y: COL.top + offset + r * (COL.boxH + COL.gapY),
      w: COL.boxW, h: COL.boxH, band: c,
    }));
  });
  // An edge inside the last column loops out to its right: keep a gap there too.
  const last = columns.length - 1;
  const loops = edges.some((e) => e.source !== e.target
    && pos.get(e.source)?.band === last && pos.get(e.target)?.band === last);
  const width = MARGIN * 2 + columns.length * (COL.boxW + COL.gapX) - (loops ? 0 : COL.gapX);
  return { pos, width, height, vertical: false, chars: Math.floor((COL.boxW - 16) / CHAR_PX) };
}

// Layers as rows, each wrapped to `width`; a left gutter carries edges that go back up.
function rowsGeometry(layerList, available) {
  const room = available - 2 * MARGIN - ROW.gutter - ROW.gutterR;
  const perRow = Math.max(1, Math.min(ROW.maxPerRow,
    Math.floor((room + ROW.gapX) / (ROW.minBoxW + ROW.gapX))));
  const boxW = Math.min(ROW.maxBoxW, (room - (perRow - 1) * ROW.gapX) / perRow);
  // Boxes at their widest leave room over: the gutters stay beside the rows, not at
  // the far sides of a wide screen, so edges don't cross empty space to reach them.
  const inner = Math.min(room, perRow * boxW + (perRow - 1) * ROW.gapX);
  const width = inner + 2 * MARGIN + ROW.gutter + ROW.gutterR;
  const chars = Math.max(10, Math.floor((boxW - 16) / CHAR_PX));
  // Narrow boxes: a long generated id ("ai-model-development-lifecycle-fde58366") takes
  // four lines; make every box a line taller rather than cut its name. The estimate is
  // kept on the safe side, as measured text may wrap sooner.
  const boxH = layerList.flat().some((id) => wrapLabel(id, chars - 2, 9).length > MAX_LABEL_LINES)
    ? ROW.boxH + LINE_H : ROW.boxH;
  const pos = new Map();
  let y = MARGIN;
  let band = 0;
  for (const layer of layerList) {
    for (let s = 0; s < layer.length; s += perRow) {
      const row = layer.slice(s, s + perRow);
      const used = row.length * boxW + (row.length - 1) * ROW.gapX;
      const x0 = MARGIN + ROW.gutter + (inner - used) / 2;
      row.forEach((id, i) => pos.set(id, { x: x0 + i * (boxW + ROW.gapX), y, w: boxW, h: boxH, band }));
      y += boxH + ROW.gapY;
      band += 1;
    }
  }
  return { pos, width, height: y - ROW.gapY + MARGIN, vertical: true, chars };
}

// The geometry for a container `available` px wide.
export function geometry(ids, edges, available) {
  const layerList = layers(ids, edges);
  const cols = columnsGeometry(layerList, edges);
  if (!available || available / cols.width >= MIN_SCALE) return cols;
  return rowsGeometry(layerList, Math.max(240, Math.floor(available)));
}

// Up to two lines, broken after '-' or ' ' so generated ids like
// "data-augmentation-techniques-eddc9373" keep their distinguishing suffix.
export function wrapLabel(id, chars = 23, maxLines = MAX_LABEL_LINES) {
  const tokens = String(id).match(/[^\s-]+[\s-]*|[\s-]+/g) || [''];
  const lines = [''];
  for (const tok of tokens) {
    const cur = lines[lines.length - 1];
    if (cur && (cur + tok).trimEnd().length > chars) {
      if (lines.length === maxLines) { lines[maxLines - 1] = truncate(`${cur}${tok}`, chars); return lines; }
      lines.push(tok);
    } else {
      lines[lines.length - 1] = cur + tok;
    }
  }
  return lines.map((l) => truncate(l.trimEnd(), chars));
}

// Rows layout: horizontal runs stay in the gaps between rows, vertical runs in the
// gutters, clear of every node. Lanes keep parallel edges apart.
function rowEdgePath(a, b, width, lane) {
  const off = (lane % 4) * 4 - 6;
  if (b.band > a.band + 1) {
    const x1 = a.x + a.w / 2 + off; const x2 = b.x + b.w / 2 + off;
    const gy1 = a.y + a.h + ROW.gapY / 2 + off; const gy2 = b.y - ROW.gapY / 2 + off;
    const gx = width - MARGIN - ROW.gutterR / 2 + off / 2;
    return { d: roundedPath([[x1, a.y + a.h], [x1, gy1], [gx, gy1], [gx, gy2], [x2, gy2], [x2, b.y]]), back: false };
  }
  if (b.band < a.band) {
    const x1 = a.x + a.w / 2 + off; const x2 = b.x + b.w / 2 + off;
    const gy1 = a.y - ROW.gapY / 2 + off; const gy2 = b.y + b.h + ROW.gapY / 2 + off;
    const gx = MARGIN + ROW.gutter / 2 + off / 2;
    return { d: roundedPath([[x1, a.y], [x1, gy1], [gx, gy1], [gx, gy2], [x2, gy2], [x2, b.y + b.h]]), back: true };
  }
  if (b.band > a.band) {
    const x1 = a.x + a.w / 2; const y1 = a.y + a.h;
    const x2 = b.x + b.w / 2; const y2 = b.y;
    const dy = Math.max(14, (y2 - y1) / 2);
    return { d: `M${x1},${y1} C${x1},${y1 + dy} ${x2},${y2 - dy} ${x2},${y2}`, back: false };
  }
  // The same row: a low arc through the gap above it.
  const x1 = a.x + a.w / 2; const x2 = b.x + b.w / 2;
  const lift = a.y - 14;
  return { d: `M${x1},${a.y} C${x1},${lift} ${x2},${lift} ${x2},${b.y}`, back: true };
}

// Each drawable edge's path: rows route through their gutters, columns through routes.js.
function routes(pos, edges, geo) {
  if (!geo.vertical) return columnRoutes(pos, edges, geo.height, COL.gapX);
  const out = [];
  let lane = 0;
  for (const e of edges) {
    const a = pos.get(e.source); const b = pos.get(e.target);
    if (!a || !b || e.source === e.target) continue;
    out.push({ edge: e, ...rowEdgePath(a, b, geo.width, lane) });
    if (Math.abs(b.band - a.band) > 1 || b.band < a.band) lane += 1;
  }
  return out;
}

function nodeTitle(node) {
  const score = node.score === null ? 'no score' : `score ${Number(node.score).toFixed(3)}`;
  return `${node.id} — ${score}${node.content ? `\n${node.content}` : ''}`;
}

export function renderGraphSvg(container, nodes, edges, cited, scale) {
  const ids = nodes.map((n) => n.id);
  const geo = geometry(ids, edges, container.clientWidth);
  const { pos, width, height } = geo;
  const root = svg('svg', {
    class: `graph-svg ${geo.vertical ? 'rows' : 'columns'}`, width, height,
    viewBox: `0 0 ${width} ${height}`, role: 'img', 'data-laid-out-for': container.clientWidth,
    'aria-label': `Knowledge graph with ${nodes.length} nodes`,
  });
  const defs = svg('defs');
  const marker = svg('marker', {
    // userSpaceOnUse: the same arrow size on thin and thick (cited) edges.
    id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 8, markerHeight: 8,
    markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse',
  });
  marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#94a3b8' }));
  defs.append(marker);
  root.append(defs);

  const edgeLayer = svg('g', { class: 'edges' });
  let backEdges = 0;
  for (const { edge: e, d, back } of routes(pos, edges, geo)) {
    if (back) backEdges += 1;
    const isCited = cited.has(e.source) && cited.has(e.target);
    const path = svg('path', {
      class: `edge${back ? ' back' : ''}${isCited ? ' cited' : ''}`, d, 'marker-end': 'url(#arrow)',
      'data-source': e.source, 'data-target': e.target,
    });
    path.append(svg('title', {}, `${e.source} —${e.relationship || ''}→ ${e.target}`));
    edgeLayer.append(path);
  }
  root.append(edgeLayer);

  const nodeLayer = svg('g', { class: 'nodes' });
  for (const node of nodes) {
    const p = pos.get(node.id);
    const colour = scale.colour(node.score);
    const g = svg('g', {
      class: `node${cited.has(node.id) ? ' cited' : ''}`, id: nodeAnchor(node.id),
      transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`, 'data-node-id': node.id,
      tabindex: 0, role: 'button', 'aria-label': `${node.id}: show its text`,
    });
    g.append(svg('title', {}, nodeTitle(node)));
    g.append(svg('rect', { class: 'box', width: p.w.toFixed(1), height: p.h, rx: 9, fill: colour.fill }));
    labelLines(g, node.id, geo.chars, colour.text);
    const barW = Math.max(40, p.w - 62);
    const barY = p.h - 19;
    const score = node.score === null ? null : Math.min(1, Math.max(0, Number(node.score)));
    g.append(svg('rect', { x: 8, y: barY, width: barW.toFixed(1), height: 9, rx: 4, fill: '#ffffff', stroke: '#1e3a8a', 'stroke-width': 0.8 }));
    g.append(svg('rect', { class: 'bar-fill', x: 8, y: barY, width: (barW * (score ?? 0)).toFixed(1), height: 9, rx: 4, fill: '#f59e0b' }));
    g.append(svg('text', { class: 'node-score', x: barW + 14, y: barY + 9, fill: colour.text },
      score === null ? '—' : score.toFixed(2)));
    nodeLayer.append(g);
  }
  root.append(nodeLayer);
  container.replaceChildren(root, legend(scale, true, backEdges > 0));
  fitLabels(root);
}

function labelLines(g, id, chars, fill) {
  for (const t of g.querySelectorAll('text.node-label')) t.remove();
  const box = g.querySelector('rect.box');
  const ref = box.nextSibling; // labels just above the box
  wrapLabel(id, chars, linesFor(Number(box.getAttribute('height')))).forEach((line, i) => {
    g.insertBefore(svg('text', { class: 'node-label', x: 8, y: 17 + i * LINE_H, fill }, line), ref);
  });
}

// Character counts only estimate widths: once drawn, wrap a label that still runs
// past its box (wide letters, another font) into narrower lines, as many as the box
// holds, and shorten only what those cannot hold, so no label leaves its node.
function fitLabels(root) {
  for (const g of root.querySelectorAll('g.node')) {
    const room = Number(g.querySelector('rect.box').getAttribute('width')) - 14;
    const fits = () => [...g.querySelectorAll('text.node-label')].every((t) => t.getComputedTextLength() <= room);
    const fill = g.querySelector('text.node-label') ? g.querySelector('text.node-label').getAttribute('fill') : null;
    let chars = Math.floor(room / 6);
    while (!fits() && chars > 6) {
      chars -= 1;
      labelLines(g, g.dataset.nodeId, chars, fill);
    }
    for (const t of g.querySelectorAll('text.node-label')) {
      let text = t.textContent;
      while (text.length > 4 && t.getComputedTextLength() > room) {
        text = `${text.replace(/…$/, '').slice(0, -1).trimEnd()}…`;
        t.textContent = text;
      }
    }
  }
}

export function renderNodeList(container, nodes, cited, scale) {
  if (!nodes.length) {
    container.replaceChildren(el('p', { class: 'muted' }, 'No node scores yet.'));
    return;
  }
  const sorted = [...nodes].sort((a, b) => (b.score ?? -1) - (a.score ?? -1));
  const list = el('ul', { class: 'node-list' });
  for (const node of sorted) {
    const score = node.score === null ? null : Math.min(1, Math.max(0, Number(node.score)));
    const item = el('li', {
      class: `node-item${cited.has(node.id) ? ' cited' : ''}`, id: nodeAnchor(node.id),
      title: nodeTitle(node), 'data-node-id': node.id,
    });
    const swatch = el('span', { class: 'swatch' });
    swatch.style.background = scale.colour(node.score).fill; // CSSOM: allowed by the CSP
    const bar = el('span', { class: 'bar' });
    const fill = el('span', { class: 'bar-fill' });
    fill.style.width = `${Math.round((score ?? 0) * 100)}%`;
    bar.append(fill);
    item.append(swatch, el('span', { class: 'node-name' }, node.id), bar,
      el('span', { class: 'node-score' }, score === null ? '—' : score.toFixed(2)));
    list.append(item);
  }
  container.replaceChildren(list, legend(scale, false));
}

function legend(scale, withEdges, backEdges) {
  const box = el('div', { class: 'legend', id: 'graph-legend' });
  const ramp = el('span', { class: 'legend-ramp' });
  ramp.style.background = scale.gradient;
  const colours = el('span', { class: 'legend-colours' });
  if (scale.flat) {
    colours.append(ramp, document.createTextNode(
      `colour: every node scores ${scale.lo.toFixed(2)} (no differences learned yet)`));
  } else {
    colours.append(document.createTextNode(`colour: score ${scale.lo.toFixed(2)}`), ramp,
      document.createTextNode(`${scale.hi.toFixed(2)} (lowest to highest here)`));
  }
  box.append(colours);
  box.append(el('span', {}, 'bar and number: score from 0 to 1 (new nodes start at 0.5)'));
  box.append(el('span', {}, 'gold outline: cited in the email'));
  if (backEdges) box.append(el('span', {}, 'dashed: edge back to an earlier layer'));
  if (!withEdges) box.append(el('span', {}, 'edges unavailable: the backend did not give this run\'s graph'));
  return box;
}

// A node's full name, score and text below the graph: a tap or Enter shows what a
// mouse user sees on hover, on any screen.
export function showNodeDetail(box, node) {
  if (!node) { box.hidden = true; return; }
  const score = node.score === null ? 'no score yet' : `score ${Number(node.score).toFixed(2)}`;
  const close = el('button', { type: 'button', class: 'button button-small button-quiet node-detail-close' }, 'Close');
  close.addEventListener('click', () => { box.hidden = true; });
  box.replaceChildren(el('h3', { class: 'node-detail-title' }, node.id), el('p', { class: 'muted' }, score),
    el('p', { class: 'node-detail-text' }, node.content || 'This graph gives no text for this node.'), close);
  box.hidden = false;
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
  container.nodeData = new Map(nodes.map((n) => [n.id, n]));
  const scale = colourScale(nodes.map((n) => n.score));
  if (edges.length && nodes.length) renderGraphSvg(container, nodes, edges, cited, scale);
  else renderNodeList(container, nodes, cited, scale);
}
