// The dashboard page: live state (SSE, falling back to polling), run progress,
// "Generate email", and rendering of the email, graph and chart.
import { chartPoints, renderChart } from './chart.js';
import { el, nodeAnchor } from './dom.js';
import { renderGraph } from './graph.js';

const POLL_STATE_MS = 2000;
const POLL_RUN_MS = 1000;
const BACKEND_CHECK_MS = 10000;
const GRAPH_RETRY_MS = 10000;
const ACTIVE = new Set(['queued', 'running', 'starting']);

const $ = (id) => document.getElementById(id);

const ui = {
  state: JSON.parse($('initial-state').textContent),
  mock: null, // sample data, fetched only when the backend is unreachable
  backendReachable: null,
  run: null, // the backend's GET /runs/{id} answer for the active run
  runTimer: null,
  graphs: new Map(), // run_id -> {graph, at}
  pollTimer: null,
  renderedKey: null, // what the email/graph/chart were last drawn from
};

async function getJson(url, options) {
  const resp = await fetch(url, options);
  let data = null;
  try { data = await resp.json(); } catch { /* not JSON: leave null */ }
  return { status: resp.status, ok: resp.ok, data };
}

// ---- rendering ------------------------------------------------------------

function paragraphs(body) {
  return String(body).replace(/\r\n/g, '\n').split(/\n\s*\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, '')).filter((p) => p.trim());
}

function renderEmail(latest, isMock) {
  const subject = $('email-subject');
  const body = $('email-body');
  const citations = $('email-citations');
  const meta = $('email-meta');
  if (!latest) {
    subject.textContent = 'No email yet';
    subject.classList.add('empty');
    body.replaceChildren(el('p', {}, 'Start a run, or wait for the backend\'s webhook.'));
    citations.replaceChildren();
    meta.textContent = '';
    return;
  }
  subject.classList.remove('empty');
  subject.textContent = latest.email.subject;
  if (isMock) subject.append(el('span', { class: 'mock-tag' }, 'mock data'));
  body.replaceChildren(...paragraphs(latest.email.body).map((p) => el('p', {}, p)));
  citations.replaceChildren(...(latest.email.citations || []).map((c) => {
    const li = el('li');
    li.append(el('a', { href: `#${nodeAnchor(c)}`, 'data-node-id': c }, c));
    return li;
  }));
  const iter = latest.iteration ?? '–';
  const of = latest.iterations ? `/${latest.iterations}` : '';
  const when = latest.received_at ? new Date(latest.received_at).toLocaleTimeString() : '';
  meta.textContent = `${isMock ? 'mock data · ' : ''}run ${latest.run_id} · ${latest.stage} · iteration ${iter}${of}${when && !isMock ? ` · received ${when}` : ''}`;
}

function graphFor(latest, isMock) {
  if (!latest) return null;
  if (isMock) return ui.mock && ui.mock.graph;
  const cached = ui.graphs.get(latest.run_id);
  if (cached && (cached.graph || Date.now() - cached.at < GRAPH_RETRY_MS)) return cached.graph;
  ui.graphs.set(latest.run_id, { graph: cached ? cached.graph : null, at: Date.now() });
  getJson(`/api/graph/${encodeURIComponent(latest.run_id)}`).then((r) => {
    const ok = r.ok && r.data && Array.isArray(r.data.nodes);
    ui.graphs.set(latest.run_id, { graph: ok ? r.data : null, at: Date.now() });
    if (ok) render();
  }).catch(() => {});
  return cached ? cached.graph : null;
}

function isRunActive() {
  const id = ui.state.active_run_id;
  if (!id) return false;
  if (ui.backendReachable === false) return false;
  return !ui.run || ui.run.run_id !== id || ACTIVE.has(ui.run.status);
}

function renderProgress() {
  const id = ui.state.active_run_id;
  $('progress').hidden = !id;
  if (!id) return;
  const run = ui.run && ui.run.run_id === id ? ui.run : null;
  const status = run ? run.status : 'starting';
  const p = (run && run.progress) || {};
  const parts = [`Run ${id}`, status];
  if (p.iterations) parts.push(`iteration ${p.iteration ?? 0}/${p.iterations}`);
  if (p.step) parts.push(`step: ${p.step}`);
  if (run && run.error) parts.push(`error: ${run.error}`);
  const arrived = ui.state.latest && ui.state.latest.run_id === id;
  if (run && run.status === 'succeeded' && !arrived) {
    parts.push('finished, but no webhook arrived (is FRONTEND_URL set on the backend?)');
  }
  $('run-status').textContent = parts.join(' · ');
  const fraction = Number(p.fraction);
  $('run-progress').value = status === 'succeeded' ? 1 : (Number.isFinite(fraction) ? fraction : 0);
}

function render() {
  const real = ui.state.latest;
  const showMock = !real && ui.backendReachable === false && ui.mock !== null;
  const view = showMock ? ui.mock.state : ui.state;
  $('mock-banner').hidden = !showMock;
  document.body.classList.toggle('is-mock', showMock);

  // Progress polls call render() every second: rebuild the email, graph and chart only
  // when what they show changed, so the page doesn't flicker or lose a hovered node.
  const graph = graphFor(view.latest, showMock);
  const run = !showMock && ui.run && view.latest && ui.run.run_id === view.latest.run_id ? ui.run : null;
  const points = chartPoints(run, view.history);
  const key = JSON.stringify([showMock, view.latest, view.history, points, graph !== null,
    graph && graph.nodes.length]);
  if (key !== ui.renderedKey) {
    ui.renderedKey = key;
    renderEmail(view.latest, showMock);
    renderGraph($('graph-view'), view.latest, graph);
    renderChart($('chart-view'), points);
  }

  const waiting = isRunActive() && !(real && real.run_id === ui.state.active_run_id);
  $('dreaming').hidden = !waiting;
  renderProgress();

  const pill = $('backend-pill');
  pill.textContent = ui.backendReachable === null ? 'backend: checking…'
    : ui.backendReachable ? 'backend: connected' : 'backend: unreachable';
  pill.classList.toggle('pill-ok', ui.backendReachable === true);
  pill.classList.toggle('pill-bad', ui.backendReachable === false);
}

// ---- live state -------------------------------------------------------------

function onState(next) {
  if (!next || typeof next.version !== 'number') return;
  const before = ui.state;
  if (before && next.version === before.version) return;
  ui.state = next;
  const latest = next.latest;
  const finished = latest && latest.stage === 'final' && latest.run_id === next.active_run_id
    && ui.run && ACTIVE.has(ui.run.status);
  // A new run, or the final webhook of the watched one: refresh its status now
  // rather than at the next poll, so the page never shows "queued" beside a result.
  if (next.active_run_id && (next.active_run_id !== before.active_run_id || finished)) {
    watchRun(next.active_run_id);
  }
  render();
}

function setLive(text) { $('live-pill').textContent = `live: ${text}`; }

function startPolling() {
  if (ui.pollTimer) return;
  setLive('polling');
  const tick = async () => {
    try {
      const r = await getJson('/api/state');
      if (r.ok) onState(r.data);
    } catch { /* dashboard restarting: try again next tick */ }
    ui.pollTimer = setTimeout(tick, POLL_STATE_MS);
  };
  tick();
}

function connectLive() {
  if (!('EventSource' in window)) { startPolling(); return; }
  const source = new EventSource('/api/events');
  let failures = 0;
  source.addEventListener('state', (e) => { failures = 0; onState(JSON.parse(e.data)); });
  source.onopen = () => setLive('streaming');
  source.onerror = () => {
    failures += 1;
    // EventSource retries by itself; after repeated failures poll instead.
    if (source.readyState === EventSource.CLOSED || failures >= 3) {
      source.close();
      startPolling();
    } else {
      setLive('reconnecting…');
    }
  };
}

// ---- backend --------------------------------------------------------------

async function checkBackend() {
  let reachable = false;
  try {
    const r = await getJson('/api/backend');
    reachable = Boolean(r.ok && r.data && r.data.reachable);
  } catch { reachable = false; }
  const changed = reachable !== ui.backendReachable;
  ui.backendReachable = reachable;
  if (!reachable && ui.mock === null) {
    try { ui.mock = (await getJson('/api/mock')).data; } catch { /* keep trying later */ }
  }
  if (reachable && changed) loadScenarios();
  render();
  setTimeout(checkBackend, BACKEND_CHECK_MS);
}

async function loadScenarios() {
  try {
    const r = await getJson('/api/scenarios');
    // A bare list, or {"scenarios": [...], "default": id} as the backend answers.
    const list = Array.isArray(r.data) ? r.data : (r.data && r.data.scenarios);
    if (!r.ok || !Array.isArray(list)) return;
    const select = $('scenario');
    const chosen = select.value;
    select.replaceChildren(el('option', { value: '' }, 'default scenario'));
    for (const s of list) {
      const name = s.prospect ? [s.prospect.name, s.prospect.company].filter(Boolean).join(', ') : '';
      select.append(el('option', { value: s.id }, `${s.id}${name ? ` — ${name}` : ''}${s.goal ? `: ${s.goal}` : ''}`));
    }
    select.value = chosen;
  } catch { /* the select keeps the default */ }
}

function watchRun(runId) {
  clearTimeout(ui.runTimer);
  const tick = async () => {
    let delay = POLL_RUN_MS;
    try {
      const r = await getJson(`/api/run/${encodeURIComponent(runId)}`);
      if (ui.state.active_run_id !== runId) return;
      if (r.ok && r.data) {
        ui.run = r.data;
      } else if (r.status === 404) {
        ui.run = { run_id: runId, status: 'unknown', error: 'the backend does not know this run' };
      } else {
        delay = POLL_RUN_MS * 3; // backend down or busy: keep trying, less often
      }
    } catch { delay = POLL_RUN_MS * 3; }
    render();
    if (!ui.run || ui.run.run_id !== runId || ACTIVE.has(ui.run.status)) {
      ui.runTimer = setTimeout(tick, delay);
    }
  };
  tick();
}

// ---- generate ---------------------------------------------------------------

async function readGraphFile(input) {
  const file = input.files && input.files[0];
  if (!file) return undefined;
  let parsed;
  try { parsed = JSON.parse(await file.text()); } catch (e) {
    throw new Error(`${file.name} is not valid JSON: ${e.message}`);
  }
  // A bare node list, a learn-loop request body, or {"nodes": [...]}.
  if (Array.isArray(parsed)) return parsed;
  if (parsed && Array.isArray(parsed.graph)) return parsed.graph;
  if (parsed && Array.isArray(parsed.nodes)) return parsed.nodes;
  throw new Error(`${file.name} must hold a JSON list of nodes (or {"graph": [...]})`);
}

function describeError(r) {
  const d = r.data && r.data.detail;
  if (Array.isArray(d)) return d.map((e) => `${(e.loc || []).join('.')}: ${e.msg}`).join('\n');
  const problems = r.data && Array.isArray(r.data.problems) ? r.data.problems : [];
  if (problems.length) return problems.map((p) => `${p.where}: ${p.message}`).join('\n');
  if (typeof d === 'string') return d;
  if (r.status === 503) return 'The backend cannot be reached.';
  return `The backend answered ${r.status}.`;
}

async function onGenerate(event) {
  event.preventDefault();
  const button = $('generate');
  const error = $('generate-error');
  error.hidden = true;
  button.disabled = true;
  try {
    const body = {
      iterations: Number($('iterations').value) || 2,
      depth: Number($('depth').value) || 5,
    };
    const scenario = $('scenario').value;
    if (scenario) body.scenario = scenario;
    const graph = await readGraphFile($('graph-file'));
    if (graph) body.graph = graph;
    const r = await getJson('/api/generate', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    if (!r.ok || !r.data || !r.data.run_id) throw new Error(describeError(r));
    ui.state = { ...ui.state, active_run_id: r.data.run_id };
    ui.run = { run_id: r.data.run_id, status: r.data.status || 'queued', progress: {} };
    watchRun(r.data.run_id);
    render();
  } catch (e) {
    error.textContent = e.message;
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
}

// Clicking a citation also flashes its node, which may be off screen in a big graph.
function onCitationClick(event) {
  const link = event.target.closest('a[data-node-id]');
  if (!link) return;
  const target = document.getElementById(nodeAnchor(link.dataset.nodeId));
  if (!target) return;
  target.classList.add('highlight');
  setTimeout(() => target.classList.remove('highlight'), 2000);
}

$('generate-form').addEventListener('submit', onGenerate);
$('email-citations').addEventListener('click', onCitationClick);
if (ui.state.active_run_id) watchRun(ui.state.active_run_id);
render();
connectLive();
checkBackend();
