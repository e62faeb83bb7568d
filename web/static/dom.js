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

// Score -> colour intensity: pale blue for 0, deep blue for 1; text flips to white
// on the dark end so the label stays readable.
export function scoreColour(score) {
  const lightness = 95 - 57 * clamp01(score);
  return { fill: `hsl(214, 78%, ${lightness.toFixed(1)}%)`, text: lightness < 62 ? '#ffffff' : '#0f172a' };
}

export function truncate(text, max) {
  const s = String(text);
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
