// Reward across iterations: one line per metric, drawn as SVG at the container's width,
// and the same numbers as a table.
import { el, svg } from './dom.js';

const H = 230;
const PAD = { l: 42, r: 14, t: 12, b: 36 };
const MIN_LABEL_PX = 34; // x labels closer than this run together
const PREFERRED = ['mean', 'max', 'min', 'median', 'greedy_reward', 'oracle'];
const COLOURS = {
  mean: '#2563eb', max: '#16a34a', min: '#dc2626', median: '#0891b2', greedy_reward: '#9333ea',
  oracle: '#475569',
};
const FALLBACK = ['#ea580c', '#475569', '#db2777', '#65a30d', '#0d9488'];
const LABELS = { greedy_reward: 'greedy' };
const TABLE_COLUMNS = ['mean', 'median', 'min', 'max', 'greedy_reward', 'oracle'];

// The smallest "nice" step (1, 2, 5, 10, 20, 25, 50, …) that keeps labels apart.
export function tickStep(span, px) {
  const fit = Math.max(1, Math.floor(px / MIN_LABEL_PX));
  for (let mag = 1; ; mag *= 10) {
    for (const m of [1, 2, 5]) {
      if (m * mag * fit >= span) return m * mag;
    }
    if (mag > 1e6) return mag;
  }
}

// points: [{x: iteration, values: {metric: number}}] in iteration order.
export function renderChart(container, points) {
  const usable = points.filter((p) => Object.keys(p.values).length);
  if (!usable.length) {
    container.replaceChildren(el('p', { class: 'muted' }, 'No metrics yet.'));
    return;
  }
  const W = Math.max(260, Math.min(720, Math.floor(container.clientWidth || 460)));
  const keys = new Set(usable.flatMap((p) => Object.keys(p.values)));
  let series = PREFERRED.filter((k) => keys.has(k));
  if (!series.length) series = [...keys].slice(0, 5);

  const xs = usable.map((p) => p.x);
  const vals = usable.flatMap((p) => series.map((k) => p.values[k]).filter(Number.isFinite));
  const x0 = Math.min(...xs); const x1 = Math.max(...xs, x0 + 1);
  const y0 = Math.min(0, ...vals); const y1 = Math.max(1, ...vals);
  const plotW = W - PAD.l - PAD.r;
  const sx = (x) => PAD.l + ((x - x0) / (x1 - x0)) * plotW;
  const sy = (y) => H - PAD.b - ((y - y0) / (y1 - y0)) * (H - PAD.t - PAD.b);

  const root = svg('svg', {
    class: 'chart-svg', width: W, height: H, viewBox: `0 0 ${W} ${H}`,
    role: 'img', 'aria-label': 'Reward per iteration',
  });
  for (let i = 0; i <= 4; i += 1) {
    const y = y0 + ((y1 - y0) * i) / 4;
    root.append(svg('line', { class: 'grid', x1: PAD.l, x2: W - PAD.r, y1: sy(y), y2: sy(y) }));
    root.append(svg('text', { x: PAD.l - 6, y: sy(y) + 4, 'text-anchor': 'end' }, y.toFixed(2)));
  }
  const step = tickStep(x1 - x0, plotW);
  const first = Math.ceil(x0 / step) * step;
  for (let x = first; x <= x1; x += step) {
    root.append(svg('text', { class: 'x-tick', x: sx(x), y: H - PAD.b + 16, 'text-anchor': 'middle' }, x));
  }
  root.append(svg('text', { x: (PAD.l + W - PAD.r) / 2, y: H - 4, 'text-anchor': 'middle' }, 'iteration'));

  const legend = el('div', { class: 'legend' });
  const dots = usable.length <= 60;
  series.forEach((key, i) => {
    const colour = COLOURS[key] || FALLBACK[i % FALLBACK.length];
    const pts = usable.filter((p) => Number.isFinite(p.values[key]));
    root.append(svg('polyline', {
      class: 'series', stroke: colour,
      points: pts.map((p) => `${sx(p.x).toFixed(1)},${sy(p.values[key]).toFixed(1)}`).join(' '),
    }));
    if (dots) {
      for (const p of pts) {
        const dot = svg('circle', { cx: sx(p.x), cy: sy(p.values[key]), r: pts.length > 25 ? 2.2 : 3.5, fill: colour });
        dot.append(svg('title', {}, `iteration ${p.x}: ${LABELS[key] || key} ${p.values[key].toFixed(3)}`));
        root.append(dot);
      }
    }
    const swatch = el('span', { class: 'key' });
    swatch.style.background = colour;
    const item = el('span');
    item.append(swatch, document.createTextNode(LABELS[key] || key));
    legend.append(item);
  });
  container.replaceChildren(root, legend);
}

export function renderRewardTable(container, points) {
  const usable = points.filter((p) => Object.keys(p.values).length);
  if (!usable.length) {
    container.replaceChildren(el('p', { class: 'muted' }, 'No rewards yet.'));
    return;
  }
  const present = TABLE_COLUMNS.filter((k) => usable.some((p) => Number.isFinite(p.values[k])));
  const table = el('table', { class: 'reward-table' });
  const head = el('tr');
  head.append(el('th', { scope: 'col' }, 'iteration'));
  for (const k of present) head.append(el('th', { scope: 'col' }, LABELS[k] || k));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const p of usable) {
    const tr = el('tr');
    tr.append(el('th', { scope: 'row' }, p.x));
    for (const k of present) {
      tr.append(el('td', {}, Number.isFinite(p.values[k]) ? p.values[k].toFixed(3) : '–'));
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  container.replaceChildren(table);
}

// Prefer the backend's per-iteration metrics for the run; else the webhooks' history.
export function chartPoints(run, history) {
  const rows = run && run.metrics && Array.isArray(run.metrics.iterations) ? run.metrics.iterations : [];
  if (rows.length) {
    return rows.map((r) => {
      const values = {};
      for (const [k, v] of Object.entries(r)) {
        if (k !== 'iteration' && k !== 'std' && Number.isFinite(v)) values[k] = v;
      }
      return { x: r.iteration, values };
    });
  }
  // History is in iteration order; a final event repeats its iteration: keep the last.
  const byX = new Map();
  for (const h of history || []) byX.set(h.iteration, { x: h.iteration, values: h.metrics || {} });
  return [...byX.values()];
}
