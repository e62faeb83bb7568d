// Element builders. Text is only ever set through textContent, never parsed as HTML:
// webhook content cannot become markup on this page.
const SVG_NS = 'http://www.w3.org/2000/svg';

export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

export function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

// The same anchor as web/page.py's node_anchor(): citations link to these ids.
export function nodeAnchor(id) {
  let out = 'node-';
  for (const ch of String(id)) {
    out += /^[A-Za-z0-9_-]$/.test(ch) ? ch : `.${ch.codePointAt(0).toString(16)}.`;
  }
  return out;
}

export function clamp01(x) {
  const n = Number(x);
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
}

// Position t in [0, 1] -> pale blue to deep blue; text flips to white on the dark end.
export function rampColour(t) {
  const lightness = 94 - 58 * clamp01(t);
  return { fill: `hsl(214, 78%, ${lightness.toFixed(1)}%)`, text: lightness < 62 ? '#ffffff' : '#0f172a' };
}

// Colours span the scores actually present: every node starts at the neutral 0.5 and
// learning moves scores a little, so a fixed 0..1 ramp would paint everything alike.
// A spread under FLAT counts as "no differences yet" and gets the middle colour.
const FLAT = 0.005;
export function colourScale(scores) {
  const xs = scores.map(Number).filter(Number.isFinite).map(clamp01);
  const lo = xs.length ? Math.min(...xs) : 0;
  const hi = xs.length ? Math.max(...xs) : 1;
  const flat = hi - lo < FLAT;
  const at = (s) => (flat ? 0.5 : (clamp01(s) - lo) / (hi - lo));
  return {
    lo, hi, flat,
    colour: (s) => (s === null || s === undefined || !Number.isFinite(Number(s))
      ? { fill: '#e2e8f0', text: '#0f172a' } : rampColour(at(Number(s)))),
    gradient: flat ? rampColour(0.5).fill
      : `linear-gradient(90deg, ${rampColour(0).fill}, ${rampColour(0.5).fill}, ${rampColour(1).fill})`,
  };
}

export function truncate(text, max) {
  const s = String(text);
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
