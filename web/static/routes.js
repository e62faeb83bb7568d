// Edge routes for the columns layout (wide screens) that never run behind a node.
//
// Between neighbouring columns an edge is a curve inside the gap between them, where
// no node is. Any other edge is orthogonal: out of its node into a gap, along a gap to
// a height that is free in every column it must cross (between two nodes, or above or
// below a column's nodes), across, and down another gap into its target. Gaps and free
// heights hold no node by construction, so the route is clear whatever the graph.

const PAD = 4; // clearance kept from every node box
const RADIUS = 6; // rounded corners
const LANE = 7; // spacing of parallel vertical runs in one gap
const SIDE = 12; // back and same-column edges attach this far below the side's middle

// Each band (column): its x extent and the y extents its nodes block.
function bandsOf(pos) {
  const bands = [];
  for (const p of pos.values()) {
    const b = (bands[p.band] ||= { left: p.x, right: p.x + p.w, spans: [] });
    b.left = Math.min(b.left, p.x);
    b.right = Math.max(b.right, p.x + p.w);
    b.spans.push([p.y - PAD, p.y + p.h + PAD]);
  }
  return bands;
}

// The height nearest `want` that is free in every band from lo to hi.
export function freeLevel(bands, lo, hi, want, top, bottom) {
  const spans = [];
  for (let c = lo; c <= hi; c += 1) if (bands[c]) spans.push(...bands[c].spans);
  spans.sort((a, b) => a[0] - b[0]);
  const free = [];
  let y = top;
  for (const [s, e] of spans) {
    if (s > y) free.push([y, s]);
    y = Math.max(y, e);
  }
  if (bottom > y) free.push([y, bottom]);
  let best = null;
  for (const [a, b] of free) {
    // In a narrow gap, its middle; in a wide one, as near `want` as it allows.
    const level = b - a < 2 * RADIUS ? (a + b) / 2 : Math.min(b - RADIUS, Math.max(a + RADIUS, want));
    if (best === null || Math.abs(level - want) < Math.abs(best - want)) best = level;
  }
  return best ?? top;
}

// A polyline with rounded corners; each corner stays inside its two segments' box,
// so it is as clear of the nodes as the segments are.
export function roundedPath(points) {
  const pts = points.filter((p, i) => i === 0 || Math.abs(p[0] - points[i - 1][0]) + Math.abs(p[1] - points[i - 1][1]) > 0.01);
  const f = (n) => n.toFixed(1);
  let d = `M${f(pts[0][0])},${f(pts[0][1])}`;
  for (let i = 1; i < pts.length - 1; i += 1) {
    const [px, py] = pts[i - 1]; const [cx, cy] = pts[i]; const [nx, ny] = pts[i + 1];
    const l1 = Math.hypot(cx - px, cy - py); const l2 = Math.hypot(nx - cx, ny - cy);
    const r = Math.min(RADIUS, l1 / 2, l2 / 2);
    const ax = cx - ((cx - px) / l1) * r; const ay = cy - ((cy - py) / l1) * r;
    const bx = cx + ((nx - cx) / l2) * r; const by = cy + ((ny - cy) / l2) * r;
    d += ` L${f(ax)},${f(ay)} Q${f(cx)},${f(cy)} ${f(bx)},${f(by)}`;
  }
  const last = pts[pts.length - 1];
  return `${d} L${f(last[0])},${f(last[1])}`;
}

// Routes for every edge whose ends are both placed: [{ edge, d, back }].
// `bottom` is the drawing's height; `gapX` the width of the gap between columns.
export function columnRoutes(pos, edges, bottom, gapX) {
  const bands = bandsOf(pos);
  const lanes = new Map(); // gap index (the band on its left) -> runs placed in it
  const laneX = (gap) => {
    const k = lanes.get(gap) || 0;
    lanes.set(gap, k + 1);
    const room = Math.max(1, Math.floor((gapX - 2 * LANE) / LANE));
    return bands[gap].right + LANE + (k % room) * LANE + LANE / 2;
  };
  const level = (lo, hi, want) => freeLevel(bands, lo, hi, want, PAD, bottom - PAD);
  const out = [];
  for (const e of edges) {
    const a = pos.get(e.source); const b = pos.get(e.target);
    if (!a || !b || e.source === e.target) continue;
    const ya = a.y + a.h / 2; const yb = b.y + b.h / 2;
    let d; let back = false;
    if (b.band === a.band + 1) {
      const x1 = a.x + a.w; const x2 = b.x;
      const dx = (x2 - x1) / 2;
      d = `M${x1},${ya} C${x1 + dx},${ya} ${x2 - dx},${yb} ${x2},${yb}`;
    } else if (b.band > a.band) {
      const g1 = laneX(a.band); const g2 = laneX(b.band - 1);
      const y = level(a.band + 1, b.band - 1, (ya + yb) / 2);
      d = roundedPath([[a.x + a.w, ya], [g1, ya], [g1, y], [g2, y], [g2, yb], [b.x, yb]]);
    } else if (b.band === a.band) {
      back = true;
      const g = laneX(a.band);
      d = roundedPath([[a.x + a.w, ya + SIDE], [g, ya + SIDE], [g, yb + SIDE], [b.x + b.w, yb + SIDE]]);
    } else {
      back = true;
      const g1 = laneX(a.band - 1); const g2 = b.band === a.band - 1 ? g1 : laneX(b.band);
      const y1 = ya + SIDE; const y2 = yb + SIDE;
      const y = b.band + 1 <= a.band - 1 ? level(b.band + 1, a.band - 1, (y1 + y2) / 2) : y2;
      d = roundedPath([[a.x, y1], [g1, y1], [g1, y], [g2, y], [g2, y2], [b.x + b.w, y2]]);
    }
    out.push({ edge: e, d, back });
  }
  return out;
}
