// Reward across iterations: one line per metric, drawn as SVG.
import { el, svg } from './dom.js';

const W = 460; const H = 230;
const PAD = { l: 42, r: 14, t: 12, b: 34 };
const PREFERRED = ['mean', 'max', 'min', 'median', 'greedy_reward'];
const COLOURS = {
  mean: '#2563eb', max: '#16a34a', min: '#dc2626', median: '#0891b2', greedy_reward: '#9333ea',
};
const FALLBACK = ['#ea580c', '#475569', '#db2777', '#65a30d', '#0d9488'];

// points: [{x: iteration, values: {metric: number}}] in iteration order.
export function renderChart(container, points) {
  const usable = points.filter((p) => Object.keys(p.values).length);
  if (!usable.length) {
    container.replaceChildren(el('p', { class: 'muted' }, 'No metrics yet.'));
    return;
  }
  const keys = new Set(usable.flatMap((p) => Object.keys(p.values)));
  let series = PREFERRED.filter((k) => keys.has(k));
  if (!series.length) series = [...keys].slice(0, 5);

  const xs = usable.map((p) => p.x);
  const vals = usable.flatMap((p) => series.map((k) => p.values[k]).filter(Number.isFinite));
  const x0 = Math.min(...xs); const x1 = Math.max(...xs, x0 + 1);
  const y0 = Math.min(0, ...vals); const y1 = Math.max(1, ...vals);
  const sx = (x) => PAD.l + ((x - x0) / (x1 - x0)) * (W - PAD.l - PAD.r);
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
  for (const x of [...new Set(xs)]) {
    root.append(svg('text', { x: sx(x), y: H - PAD.b + 16, 'text-anchor': 'middle' }, x));
  }
  root.append(svg('text', { x: (PAD.l + W - PAD.r) / 2, y: H - 4, 'text-anchor': 'middle' }, 'iteration'));

  const legend = el('div', { class: 'legend' });
  series.forEach((key, i) => {
    const colour = COLOURS[key] || FALLBACK[i % FALLBACK.length];
    const pts = usable.filter((p) => Number.isFinite(p.values[key]));
    root.append(svg('polyline', {
      class: 'series', stroke: colour,
      points: pts.map((p) => `${sx(p.x).toFixed(1)},${sy(p.values[key]).toFixed(1)}`).join(' '),
    }));
    for (const p of pts) {
      const dot = svg('circle', { cx: sx(p.x), cy: sy(p.values[key]), r: 3.5, fill: colour });
      dot.append(svg('title', {}, `iteration ${p.x}: ${key} ${p.values[key].toFixed(3)}`));
      root.append(dot);
    }
    const swatch = el('span', { class: 'key' });
    swatch.style.background = colour;
    const item = el('span');
    item.append(swatch, document.createTextNode(key));
    legend.append(item);
  });
  container.replaceChildren(root, legend);
}

// Prefer the backend's per-iteration metrics for the run; else the webhooks' history.
export function chartPoints(run, history) {
  const rows = run && run.metrics && Array.isArray(run.metrics.iterations) ? run.metrics.iterations : [];
  if (rows.length) {
    return rows.map((r) => {
      const values = {};
      for (const [k, v] of Object.entries(r)) if (k !== 'iteration' && Number.isFinite(v)) values[k] = v;
      return { x: r.iteration, values };
    });
  }
  // History is in iteration order; a final event repeats its iteration: keep the last.
  const byX = new Map();
  for (const h of history || []) byX.set(h.iteration, { x: h.iteration, values: h.metrics || {} });
  return [...byX.values()];
}
