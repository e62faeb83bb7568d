// The dashboard page: live state (SSE, falling back to polling), the run this page
// follows, "Generate email", and rendering of the email, graph, chart and table.
import { chartPoints, renderChart, renderRewardTable } from './chart.js';
import { el, nodeAnchor } from './dom.js';
import { initForm, readForm, setPresets } from './form.js';
import { initEmailTools, setShownEmail } from './email_tools.js';
import { renderGraph, showNodeDetail } from './graph.js';
import { runNote } from './status.js';

const POLL_STATE_MS = 2000;
const POLL_RUN_MS = 1000;
const BACKEND_CHECK_MS = 10000;
const GRAPH_RETRY_MS = 10000;
const ACTIVE = new Set(['queued', 'running', 'starting', 'cancelling']);
const RESUMABLE = new Set(['interrupted', 'failed', 'cancelled']);
const CANCELLABLE = new Set(['queued', 'running', 'interrupted']);

const $ = (id) => document.getElementById(id);

const ui = {
  state: null,
  mock: null, // sample data, fetched only when the backend is unreachable
  backendReachable: null,
  backendChecked: null, // what the last health check found (a run poll sets only the above)
  run: null, // the backend's GET /runs/{id} answer for the followed run
  runUnreachable: false, // the last status poll of that run failed
  runTimer: null,
  graphs: new Map(), // run_id -> {graph, at}
  pollTimer: null,
  renderedKey: null, // what the email/graph/chart were last drawn from
  followLatest: false, // the user chose to look at another run's newer result
  notes: new Map(), // run_id -> what the backend said about the run as planned
  adopted: null, // the newest run the backend lists, followed when nothing else is
  opened: null, // a past run the user clicked in the list
  watching: null, // the run whose status is being polled
  runs: [], // GET /runs: the newest runs
  oracles: new Map(), // run_id -> the run's ceiling (null: not known)
  chosenProspect: null, // whose email is shown, for a run with several prospects
};

async function getJson(url, options) {
  const resp = await fetch(url, options);
  let data = null;
  try { data = await resp.json(); } catch { /* not JSON: leave null */ }
  // The dashboard's own session ended: the reloaded page asks to sign in again.
  if (resp.status === 401 && data && typeof data.detail === 'string' && data.detail.startsWith('sign in')) {
    window.location.reload();
  }
  return { status: resp.status, ok: resp.ok, data };
}

function postJson(url, body) {
  return getJson(url, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body ?? {}),
  });
}

// ---- what the page shows -----------------------------------------------------

// The run whose status the page shows: the one started here, else (after a restart of
// the dashboard, which forgets it) the run of the newest result, else the newest run
// the backend lists, so an interrupted run is never left without its Resume button.
function followedRunId() {
  if (ui.followLatest) return null;
  return ui.opened || ui.state.active_run_id || (ui.state.latest && ui.state.latest.run_id) || ui.adopted || null;
}

function view() {
  const real = ui.state;
  const follow = followedRunId();
  if (follow && follow === real.active_run_id) {
    return { latest: real.active, history: real.active_history, mock: false, follow };
  }
  if (follow) {
    const mine = real.latest && real.latest.run_id === follow;
    return { latest: mine ? real.latest : null, history: mine ? real.history : [], mock: false, follow };
  }
  const showMock = !real.latest && ui.backendReachable === false && ui.mock !== null;
  if (showMock) return { ...ui.mock.state, mock: true, follow: null };
  return { latest: real.latest, history: real.history, mock: false, follow: null };
}

function paragraphs(body) {
  return String(body).replace(/\r\n/g, '\n').split(/\n\s*\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, '')).filter((p) => p.trim());
}

function renderEmail(latest, isMock, emptyText) {
  const subject = $('email-subject');
  const body = $('email-body');
  const citations = $('email-citations');
  const meta = $('email-meta');
  if (!latest) {
    subject.textContent = emptyText ? emptyText[0] : 'No email yet';
    subject.classList.add('empty');
    body.replaceChildren(el('p', {}, emptyText ? emptyText[1] : 'Start a run, or wait for the backend\'s webhook.'));
    citations.replaceChildren();
    $('citations-title').hidden = true;
    meta.textContent = '';
    return;
  }
  subject.classList.remove('empty');
  subject.textContent = latest.email.subject;
  if (isMock) subject.append(el('span', { class: 'mock-tag' }, 'mock data'));
  body.replaceChildren(...paragraphs(latest.email.body).map((p) => el('p', {}, p)));
  $('citations-title').hidden = !(latest.email.citations || []).length;
  citations.replaceChildren(...(latest.email.citations || []).map((c) => {
    const li = el('li');
    li.append(el('a', { href: `#${nodeAnchor(c)}`, 'data-node-id': c }, c));
    return li;
  }));
  const when = latest.received_at && !isMock ? ` · received ${new Date(latest.received_at).toLocaleTimeString()}` : '';
  meta.textContent = `${isMock ? 'mock data · ' : ''}run ${latest.run_id} · ${stageText(latest)}${when}`;
}

function stageText(latest) {
  const of = latest.iterations ? ` of ${latest.iterations}` : '';
  if (latest.stage === 'baseline') return 'baseline (untrained)';
  if (latest.stage === 'final') return 'final: the best email of the run';
  if (latest.stage === 'backend') {
    const it = latest.iteration === null ? '' : ` (iteration ${latest.iteration})`;
    return `read from the backend${it}: its webhook has not arrived here`;
  }
  return `iteration ${latest.iteration ?? '–'}${of}`;
}

// The run's ceiling (GET /runs/{id}/oracle), fetched once per run: null when the
// backend did not compute it (over its cap, another policy, an older backend).
function oracleFor(runId, isMock) {
  if (isMock || !runId) return null;
  const cached = ui.oracles.get(runId);
  if (cached !== undefined) return cached;
  ui.oracles.set(runId, null);
  getJson(`/api/oracle/${encodeURIComponent(runId)}`).then((r) => {
    const value = r.ok && r.data && Number.isFinite(r.data.oracle_reward) ? r.data.oracle_reward : null;
    ui.oracles.set(runId, value);
    if (value !== null) render();
  }).catch(() => {});
  return null;
}

function withOracle(points, ceiling) {
  if (!Number.isFinite(ceiling) || !points.length) return points;
  return points.map((p) => ({ ...p, values: { ...p.values, oracle: ceiling } }));
}

// The graph of the run shown: fetched as soon as the run is known, so it is drawn
// (every node at its starting score) before the first email arrives.
function graphFor(runId, isMock) {
  if (isMock) return ui.mock && ui.mock.graph;
  if (!runId) return null;
  // Edges never change during a run, and the webhook's scores win over the graph's:
  // one successful fetch per run is enough; a failed one is retried now and then.
  const cached = ui.graphs.get(runId);
  if (cached && (cached.graph || Date.now() - cached.at < GRAPH_RETRY_MS)) return cached.graph;
  ui.graphs.set(runId, { graph: null, at: Date.now() });
  getJson(`/api/graph/${encodeURIComponent(runId)}`).then((r) => {
    const ok = r.ok && r.data && Array.isArray(r.data.nodes);
    ui.graphs.set(runId, { graph: ok ? r.data : null, at: Date.now() });
    if (ok) render();
  }).catch(() => {});
  return null;
}

// A followed run that stopped without its webhook reaching us still has an email on
// the backend (GET /runs/{id} latest_email): show that, saying where it came from.
function backendEmail(v, run, status) {
  if (!v.follow || v.latest || !run || ACTIVE.has(status) || !run.latest_email) return null;
  const le = run.latest_email;
  const email = le.email && typeof le.email === 'object' ? le.email : le;
  if (typeof email.subject !== 'string' || typeof email.body !== 'string') return null;
  return {
    run_id: run.run_id, stage: 'backend', iteration: Number.isInteger(le.iteration) ? le.iteration : null,
    iterations: null, node_scores: {}, received_at: null,
    email: { subject: email.subject, body: email.body, citations: Array.isArray(email.citations) ? email.citations : [] },
  };
}

function runFor(id) {
  return ui.run && ui.run.run_id === id ? ui.run : null;
}

// What the loop is doing, in a user's words (the backend's step names are internal).
const STEP_WORDS = {
  baseline: 'writing the untrained baseline email',
  generate: 'writing a group of draft emails',
  score: 'the judge is scoring the drafts',
  grpo: 'learning from the scores',
  prompt: 'learning from the scores',
  none: 'comparing the drafts',
  kg_weights: 'updating the graph\'s node scores',
  email: 'writing this iteration\'s email',
  evaluate: 'trying it on the held-out prospects',
};

// The one iteration counter: iterations finished, as the chart's last point and the
// email's "iteration k of n" count them.
export function iterationsDone(run) {
  const rows = run && run.metrics && Array.isArray(run.metrics.iterations) ? run.metrics.iterations : [];
  return rows.reduce((m, r) => (Number.isInteger(r.iteration) ? Math.max(m, r.iteration) : m), 0);
}

// `shown`: the iteration of this run's email on the page. Its webhook comes live and
// can be a poll ahead of the backend's status: the line never counts fewer than it.
function statusLine(id, status, run, unreachable, shown) {
  const p = (run && run.progress) || {};
  const parts = [`Run ${id}`, status];
  if (p.iterations) parts.push(`${Math.max(iterationsDone(run), shown)} of ${p.iterations} iterations done`);
  if (p.step && status === 'running') parts.push(`now ${STEP_WORDS[p.step] || 'working'}`);
  if (unreachable) parts.push('backend unreachable: status may be out of date');
  return parts.join(' · ');
}

function renderRun(v) {
  const id = v.follow;
  $('run-panel').hidden = !id;
  if (!id) return;
  const run = runFor(id);
  const status = run ? run.status : 'starting';
  const p = (run && run.progress) || {};
  const shown = v.latest && v.latest.run_id === id && Number.isInteger(v.latest.iteration) ? v.latest.iteration : 0;
  $('run-status').textContent = statusLine(id, status, run, ui.runUnreachable, shown);
  let fraction = Number(p.fraction);
  if (!Number.isFinite(fraction) && p.iterations) fraction = (Number(p.iteration) || 0) / p.iterations;
  $('run-progress').value = status === 'succeeded' ? 1 : (Number.isFinite(fraction) ? fraction : 0);
  const plan = (ui.notes && ui.notes.get(id)) || [];
  $('run-plan').hidden = !plan.length;
  $('run-plan').textContent = plan.map((n) => `Note: ${n}.`).join(' ');
  const note = runNote(run, v.latest, window.location.origin);
  $('run-note').hidden = !note;
  $('run-note').textContent = note ? note.text : '';
  $('run-note').classList.toggle('warn', Boolean(note && note.warn));
  const canAct = run && !ui.runUnreachable;
  $('resume-run').hidden = !(canAct && RESUMABLE.has(status));
  $('cancel-run').hidden = !(canAct && CANCELLABLE.has(status));
  $('run-actions').hidden = $('resume-run').hidden && $('cancel-run').hidden;
}

function renderOtherRun() {
  const s = ui.state;
  const started = s.active_run_id;
  // Another run's result is worth a word only if it arrived after this run started.
  const since = s.active_since ? Date.parse(s.active_since) : 0;
  const other = s.latest && started && s.latest.run_id !== started
    && Date.parse(s.latest.received_at) >= since ? s.latest : null;
  const box = $('other-run');
  if (ui.followLatest && started) {
    box.hidden = false;
    $('other-run-text').textContent = `Showing the newest result from any run. The run started here is ${started}.`;
    $('show-other').textContent = `Back to ${started}`;
  } else if (other) {
    box.hidden = false;
    $('other-run-text').textContent = `Another run (${other.run_id}, ${other.stage}) posted a result since. This page follows ${started}, the run started here.`;
    $('show-other').textContent = 'Show it';
  } else {
    box.hidden = true;
  }
}

function render() {
  const v = view();
  $('mock-banner').hidden = !v.mock;
  document.body.classList.toggle('is-mock', v.mock);
  const run = v.follow ? runFor(v.follow) : null;
  const status = run ? run.status : (v.follow ? 'starting' : null);
  const waiting = Boolean(v.follow && !v.latest && ACTIVE.has(status) && ui.backendReachable !== false);
  const latest = v.latest || backendEmail(v, run, status);
  // The dreaming cartoon: from the moment a run starts until its first trained email
  // (the untrained baseline comes within a second and is not what the user waits for).
  const dreaming = Boolean(v.follow && ACTIVE.has(status) && ui.backendReachable !== false
    && (!latest || latest.stage === 'baseline'));

  // Progress polls call render() every second: rebuild the email, graph and chart only
  // when what they show changed, so the page doesn't flicker or lose a hovered node.
  const graph = graphFor(latest ? latest.run_id : v.follow, v.mock);
  const runForChart = !v.mock && ui.run && latest && ui.run.run_id === latest.run_id ? ui.run : null;
  const points = withOracle(chartPoints(runForChart, v.history), oracleFor(latest ? latest.run_id : v.follow, v.mock));
  const emptyText = v.follow && !latest
    ? (waiting ? ['Dreaming…', `No email yet for run ${v.follow}: the first arrives after the baseline.`]
      : ['No email from this run', `Run ${v.follow} has sent no email to this dashboard.`])
    : null;
  const key = JSON.stringify([v.mock, v.follow, latest, v.history, points, graph !== null,
    graph && graph.nodes.length, emptyText]);
  const shown = prospectView(latest, v.follow, run);
  const key2 = JSON.stringify([key, shown.key]);
  if (key2 !== ui.renderedKey) {
    ui.renderedKey = key2;
    renderProspects(shown);
    renderEmail(shown.latest, v.mock, shown.emptyText || emptyText);
    renderGraph($('graph-view'), shown.latest, graph);
    renderChart($('chart-view'), points);
    renderRewardTable($('reward-table'), points);
    // The size the graph and chart were last laid out for: tests wait for it after a
    // resize (the re-layout comes 150 ms later) instead of sleeping.
    document.documentElement.dataset.laidOut = `${window.innerWidth}x${window.innerHeight}`;
  }
  $('dreaming').hidden = !dreaming;
  setShownEmail(shown.latest, v.mock ? null : runFor(shown.latest ? shown.latest.run_id : null), v.mock);
  renderRun(v);
  renderOtherRun();

  const pill = $('backend-pill');
  pill.textContent = ui.backendReachable === null ? 'backend: checking…'
    : ui.backendReachable ? 'backend: connected' : 'backend: unreachable';
  pill.classList.toggle('pill-ok', ui.backendReachable === true);
  pill.classList.toggle('pill-bad', ui.backendReachable === false);
}

// ---- several prospects ------------------------------------------------------

// Who a run trains on, in order, from the run list (GET /runs names the training
// prospects only; the Generate answer adds the held-out ones). Each {scenario_id, name}.
function prospectsOf(runId) {
  const listed = ui.runs.find((r) => r.run_id === runId);
  return listed && Array.isArray(listed.prospects) ? listed.prospects : [];
}

// A run given no prospect on a graph of its own writes to the backend's neutral reader,
// whose name is the "there" of "Hello there": say what it is instead.
function prospectName(p) {
  if (p.scenario_id === 'neutral-reader' || (p.name || '').toLowerCase() === 'there') {
    return 'neutral reader (no prospect given)';
  }
  return p.name || p.scenario_id || 'the reader';
}

// The email shown, for the prospect chosen: the webhook's is the first prospect's; the
// others' best emails come with the final result (GET /runs/{id} per_prospect).
function prospectView(latest, follow, run) {
  const runId = latest ? latest.run_id : follow;
  const training = prospectsOf(runId).filter((p, i, all) => all.findIndex((q) => q.scenario_id === p.scenario_id) === i);
  const record = run && run.run_id === runId ? run.latest_email : null;
  const per = record && Array.isArray(record.per_prospect) ? record.per_prospect : [];
  const ids = per.length ? per.map((p) => p.scenario_id) : training.map((p) => p.scenario_id);
  if (ids.length < 2) return { latest, tabs: [], key: null };
  // Names from the run list, else from the final record itself: the run list can arrive
  // after the final result, and an id is no name to show a user.
  const names = new Map(per.filter((p) => p.name).map((p) => [p.scenario_id, prospectName(p)]));
  training.forEach((p) => names.set(p.scenario_id, prospectName(p)));
  const chosen = ids.includes(ui.chosenProspect) ? ui.chosenProspect : ids[0];
  const tabs = ids.map((id) => ({ id, name: names.get(id) || id, chosen: id === chosen }));
  const first = ids[0];
  const pick = per.find((p) => p.scenario_id === chosen);
  let shown = latest;
  let emptyText = null;
  if (chosen !== first || (pick && pick.email && latest && latest.stage === 'final')) {
    if (pick && pick.email && latest) {
      shown = { ...latest, email: pick.email, prospect: names.get(chosen) || chosen };
    } else if (chosen !== first) {
      shown = null;
      emptyText = [`No email yet for ${names.get(chosen) || chosen}`,
        'Each prospect\'s best email arrives with the run\'s final result; the live email is the first prospect\'s.'];
    }
  }
  return { latest: shown, tabs, emptyText, chosenName: names.get(chosen) || chosen, count: ids.length, key: [chosen, ids, Boolean(pick)] };
}

function renderProspects(shown) {
  const box = $('prospect-tabs');
  box.hidden = !shown.tabs.length;
  box.replaceChildren(...shown.tabs.map((t) => {
    const b = el('button', { type: 'button', class: `prospect-tab${t.chosen ? ' chosen' : ''}`, 'data-scenario-id': t.id, 'aria-pressed': t.chosen ? 'true' : 'false' }, t.name);
    return b;
  }));
  const note = $('prospect-note');
  note.hidden = !shown.tabs.length;
  note.textContent = shown.tabs.length ? `This run writes to ${shown.count} prospects; showing ${shown.chosenName}'s email.` : '';
  const forText = $('graph-for');
  forText.hidden = !shown.latest;
  forText.textContent = shown.tabs.length
    ? `Colours: the node scores this run learned from all ${shown.count} prospects' emails. Gold outline: the nodes cited in ${shown.chosenName}'s email.`
    : 'Colours: the node scores this run learned from every email it judged, so the darkest node need not be in the email shown. Gold outline: the nodes this email cites.';
}

function onProspectClick(event) {
  const b = event.target.closest('button[data-scenario-id]');
  if (!b) return;
  ui.chosenProspect = b.dataset.scenarioId;
  render();
}

// ---- live state -------------------------------------------------------------

function onState(next) {
  if (!next || typeof next.version !== 'number') return;
  const before = ui.state;
  if (before && next.version === before.version) return;
  ui.state = next;
  const latest = next.active;
  const finished = latest && latest.stage === 'final' && ui.run && ACTIVE.has(ui.run.status);
  // A new run, or the final webhook of the followed one: refresh its status now
  // rather than at the next poll, so the page never shows "queued" beside a result.
  if (next.active_run_id && (next.active_run_id !== before.active_run_id || finished)) {
    if (next.active_run_id !== before.active_run_id) { ui.followLatest = false; ui.opened = null; }
    ui.watching = next.active_run_id;
    watchRun(next.active_run_id);
  }
  watchFollowed();
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
  // Compared with the last check, not with backendReachable: a run poll that answers
  // first sets that to true, and the presets and form bounds would then never load.
  const changed = reachable !== ui.backendChecked;
  ui.backendChecked = reachable;
  ui.backendReachable = reachable;
  if (!reachable && ui.mock === null) {
    try { ui.mock = (await getJson('/api/mock')).data; } catch { /* keep trying later */ }
  }
  if (changed) {
    ui.renderedKey = null;
    initForm(getJson);
    if (reachable) loadPresets();
    if (reachable) loadRuns();
    if (reachable && followedRunId()) { ui.watching = followedRunId(); watchRun(ui.watching); }
  }
  render();
  setTimeout(checkBackend, BACKEND_CHECK_MS);
}

async function loadRuns() {
  try {
    const r = await getJson('/api/runs?limit=10');
    if (!r.ok || !r.data || !Array.isArray(r.data.runs)) return;
    ui.runs = r.data.runs;
    ui.adopted = ui.runs.length ? ui.runs[0].run_id : null;
    renderRunList();
    watchFollowed();
    render();
  } catch { /* the list is a convenience; the page works without it */ }
}

function prospectNames(run) {
  const names = (run.prospects || []).map(prospectName);
  if (!names.length) return 'The backend\'s default prospect';
  const text = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function renderRunList() {
  const list = $('run-list');
  $('runs-panel').hidden = !ui.runs.length;
  list.replaceChildren(...ui.runs.map((run) => {
    const reward = Number.isFinite(run.final_reward) ? `reward ${run.final_reward.toFixed(2)}` : 'no reward yet';
    const when = run.created_at ? new Date(run.created_at).toLocaleString() : '';
    const button = el('button', { type: 'button', class: 'run-item', 'data-run-id': run.run_id });
    button.append(
      el('span', { class: 'run-who' }, prospectNames(run)),
      el('span', { class: 'run-facts' }, [run.agent ? `agent ${run.agent}` : null, run.status, reward, when]
        .filter(Boolean).join(' · ')),
    );
    const li = el('li');
    li.append(button);
    return li;
  }));
}

function onRunListClick(event) {
  const button = event.target.closest('button[data-run-id]');
  if (!button) return;
  ui.opened = button.dataset.runId;
  ui.followLatest = false;
  ui.run = null;
  ui.renderedKey = null;
  watchFollowed();
  render();
  $('run-panel').scrollIntoView({ block: 'nearest' });
}

async function loadPresets() {
  try {
    const r = await getJson('/api/scenarios');
    // A bare list, or {"scenarios": [...], "default": id} as the backend answers.
    const list = Array.isArray(r.data) ? r.data : (r.data && r.data.scenarios);
    if (r.ok && Array.isArray(list)) setPresets(list);
  } catch { /* the form still works without presets */ }
}

// Start polling the followed run's status when it changes (a restart, a click).
function watchFollowed() {
  const id = followedRunId();
  if (id && id !== ui.watching) { ui.watching = id; watchRun(id); }
}

function watchRun(runId) {
  clearTimeout(ui.runTimer);
  const tick = async () => {
    let delay = POLL_RUN_MS;
    try {
      const r = await getJson(`/api/run/${encodeURIComponent(runId)}`);
      if (followedRunId() !== runId) return;
      ui.runUnreachable = false;
      if (r.ok && r.data) {
        const before = ui.run && ui.run.run_id === runId ? ui.run.status : null;
        ui.run = r.data;
        ui.backendReachable = true; // it just answered; the pill need not wait for its check
        if (before !== r.data.status) loadRuns(); // the list shows each run's status
      } else if (r.status === 404) {
        ui.run = { run_id: runId, status: 'unknown', error: 'the backend does not know this run' };
      } else {
        ui.runUnreachable = r.status === 503;
        delay = POLL_RUN_MS * 3; // backend down or busy: keep trying, less often
      }
    } catch { ui.runUnreachable = true; delay = POLL_RUN_MS * 3; }
    // The pill says what the run's line says, not what a health check found seconds ago.
    if (ui.runUnreachable) ui.backendReachable = false;
    render();
    // Keep polling while the run works, while the backend is away, and while a
    // finished run's final webhook is still on its way.
    const run = runFor(runId);
    const waitingWebhook = run && run.status === 'succeeded' && run.webhooks
      && run.webhooks.final === 'pending' && !(ui.state.active && ui.state.active.stage === 'final');
    if (!run || ui.runUnreachable || ACTIVE.has(run.status) || waitingWebhook) {
      ui.runTimer = setTimeout(tick, waitingWebhook ? POLL_RUN_MS * 3 : delay);
    }
  };
  tick();
}

// ---- actions ---------------------------------------------------------------

// Each problem once, in the API's words; the summary line only when it adds something
// (a one-problem answer repeats its problem in `detail`; a count says "listed in problems").
export function describeError(r) {
  const d = r.data && r.data.detail;
  if (Array.isArray(d)) return d.map((e) => `${(e.loc || []).filter((x) => x !== 'body').join('.')}: ${e.msg}`).join('\n');
  const problems = r.data && Array.isArray(r.data.problems) ? r.data.problems : [];
  const total = r.data && Number(r.data.problem_count);
  const hidden = Number.isFinite(total) && total > problems.length ? total - problems.length : 0;
  const more = hidden ? `\n…and ${hidden} more` : '';
  if (problems.length) {
    const lines = problems.map((p) => (p.where && !['scenario', 'body'].includes(p.where)
      ? `${p.where.replace(/^body\./, '')}: ${p.message}` : p.message));
    const repeats = typeof d !== 'string' || /problems/.test(d) || problems.some((p) => d.includes(p.message));
    return `${repeats ? '' : `${d}\n`}${lines.join('\n')}${more}`;
  }
  if (typeof d === 'string') return d;
  if (r.status === 503) return 'The backend cannot be reached. Start it with: uv run codreamer api';
  return `The backend answered ${r.status}.`;
}

function startFollowing(runId, status, keepResult) {
  ui.followLatest = false;
  ui.opened = null;
  ui.watching = runId;
  // A new run has no email yet: never show the previous run's under it. A resumed
  // run keeps its own latest result until the next one arrives.
  if (!keepResult || ui.state.active_run_id !== runId) {
    ui.state = { ...ui.state, active_run_id: runId, active: null, active_history: [] };
  }
  ui.run = { run_id: runId, status: status || 'queued', progress: {} };
  ui.runUnreachable = false;
  ui.renderedKey = null;
  watchRun(runId);
  render();
}

async function onGenerate(event) {
  event.preventDefault();
  const button = $('generate');
  const error = $('generate-error');
  error.hidden = true;
  button.disabled = true;
  try {
    const body = await readForm();
    const r = await postJson('/api/generate', body);
    if (!r.ok || !r.data || !r.data.run_id) throw new Error(describeError(r));
    ui.notes = new Map([[r.data.run_id, Array.isArray(r.data.notes) ? r.data.notes : []]]);
    startFollowing(r.data.run_id, r.data.status);
  } catch (e) {
    error.textContent = e.message;
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
}

async function onRunAction(action) {
  const id = followedRunId();
  if (!id) return;
  const error = $('run-error');
  error.hidden = true;
  const buttons = [$('resume-run'), $('cancel-run')];
  buttons.forEach((b) => { b.disabled = true; });
  try {
    const r = await postJson(`/api/run/${encodeURIComponent(id)}/${action}`, {});
    if (!r.ok) throw new Error(describeError(r));
    if (action === 'resume') startFollowing(id, r.data && r.data.status, true);
    else { ui.run = { ...(ui.run || {}), run_id: id, status: (r.data && r.data.status) || 'cancelled' }; watchRun(id); render(); }
  } catch (e) {
    error.textContent = e.message;
    error.hidden = false;
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
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

function onResize() {
  clearTimeout(ui.resizeTimer);
  ui.resizeTimer = setTimeout(() => { ui.renderedKey = null; render(); }, 150);
}

// ---- signing in and out ----------------------------------------------------------

function initSignIn() {
  const form = $('signin-form');
  if (!form) return;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = $('signin-error');
    error.hidden = true;
    const r = await postJson('/api/login', { password: $('password').value });
    if (r.ok) { window.location.reload(); return; }
    error.textContent = (r.data && typeof r.data.detail === 'string') ? r.data.detail : `Sign-in failed (${r.status}).`;
    error.hidden = false;
  });
}

function start() {
  if (document.body.dataset.signedIn !== 'yes') { initSignIn(); return; }
  ui.state = JSON.parse($('initial-state').textContent);
  const signOut = $('sign-out');
  if (signOut) {
    signOut.addEventListener('click', async () => {
      await postJson('/api/logout', {});
      window.location.reload();
    });
  }
  $('generate-form').addEventListener('submit', onGenerate);
  $('email-citations').addEventListener('click', onCitationClick);
  $('run-list').addEventListener('click', onRunListClick);
  $('prospect-tabs').addEventListener('click', onProspectClick);
  initEmailTools(postJson, describeError);
  const onNode = (event) => {
    const node = event.target.closest('[data-node-id]');
    if (!node) return;
    const data = $('graph-view').nodeData;
    showNodeDetail($('node-detail'), data && data.get(node.dataset.nodeId));
  };
  $('graph-view').addEventListener('click', onNode);
  $('graph-view').addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onNode(e); } });
  $('resume-run').addEventListener('click', () => onRunAction('resume'));
  $('cancel-run').addEventListener('click', () => onRunAction('cancel'));
  $('show-other').addEventListener('click', () => {
    ui.followLatest = !ui.followLatest;
    ui.renderedKey = null;
    render();
  });
  window.addEventListener('resize', onResize);
  watchFollowed();
  render();
  connectLive();
  checkBackend();
}

start();
