// The Generate form: the prospect, the goal, the sender and the run's settings, with the
// backend's sample scenarios as presets and the bounds the backend publishes.
import { el } from './dom.js';

const $ = (id) => document.getElementById(id);

const PROSPECT_FIELDS = { name: 'p-name', company: 'p-company', title: 'p-title', industry: 'p-industry', notes: 'p-notes' };
const SENDER_FIELDS = { name: 's-name', company: 's-company', title: 's-title' };
const NUMBERS = ['iterations', 'depth'];

const form = {
  presets: new Map(), // id -> scenario
  limits: null,
  acceptsSender: true,
};

function setText(id, value) { $(id).value = value ?? ''; }

function fillFromPreset(id) {
  // "Your own prospect" starts from empty fields rather than the last preset's.
  const s = form.presets.get(id) || { prospect: {}, goal: '' };
  const p = s.prospect || {};
  for (const [key, field] of Object.entries(PROSPECT_FIELDS)) setText(field, p[key]);
  setText('p-tech', (p.tech_stack || []).join(', '));
  setText('p-goal', s.goal);
}

export function setPresets(list) {
  const select = $('preset');
  const chosen = select.value;
  form.presets = new Map(list.filter((s) => s && s.id).map((s) => [String(s.id), s]));
  select.replaceChildren(el('option', { value: '' }, '— your own prospect (or the backend\'s default) —'));
  for (const [id, s] of form.presets) {
    const p = s.prospect || {};
    const who = [p.name, p.title, p.company].filter(Boolean).join(', ');
    select.append(el('option', { value: id }, `${who || id}${s.goal ? ` — ${s.goal}` : ''}`));
  }
  if (form.presets.has(chosen)) select.value = chosen;
}

function applyLimits(limits) {
  form.limits = limits;
  for (const key of NUMBERS) {
    const b = limits.numbers[key];
    const input = $(key);
    input.min = b.minimum;
    input.max = b.maximum;
    const v = Number(input.value);
    // The API's default (from its OpenAPI document) unless the user typed a value.
    const untouched = input.value === input.defaultValue;
    if (untouched || !Number.isFinite(v) || v < b.minimum || v > b.maximum) input.value = b.default;
    $(`${key}-range`).textContent = `${b.minimum}–${b.maximum}`;
  }
  const lengths = limits.text || {};
  for (const [key, field] of Object.entries(PROSPECT_FIELDS)) if (lengths[key]) $(field).maxLength = lengths[key];
  if (lengths.goal) $('p-goal').maxLength = lengths.goal;
  if (lengths.tech_stack) $('p-tech').maxLength = lengths.tech_stack;
  form.acceptsSender = Boolean(limits.accepts_sender) || limits.source !== 'backend';
  $('fs-sender').disabled = !form.acceptsSender;
  $('sender-note').hidden = form.acceptsSender;
  $('sender-note').textContent = form.acceptsSender ? '' : 'This backend takes no sender in the request: '
    + 'it signs emails from its own settings (CODREAMER_SENDER_NAME, CODREAMER_SENDER_COMPANY).';
  $('form-source').textContent = limits.source === 'backend'
    ? 'limits from the backend' : 'default limits: the backend did not publish its own';
}

export async function initForm(getJson) {
  if (!form.wired) {
    form.wired = true;
    $('preset').addEventListener('change', (e) => fillFromPreset(e.target.value));
  }
  try {
    const r = await getJson('/api/form');
    if (r.ok && r.data && r.data.numbers) applyLimits(r.data);
  } catch { /* keep the bounds written in the page */ }
}

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

function readNumber(key) {
  const input = $(key);
  const label = key[0].toUpperCase() + key.slice(1);
  const v = Number(input.value);
  const min = Number(input.min); const max = Number(input.max);
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new Error(`${label} must be a whole number from ${min} to ${max}.`);
  }
  return v;
}

function trimmed(id) { return $(id).value.trim(); }

function readScenario() {
  const prospect = {};
  for (const [key, field] of Object.entries(PROSPECT_FIELDS)) {
    const v = trimmed(field);
    if (v) prospect[key] = v;
  }
  const tech = trimmed('p-tech').split(',').map((t) => t.trim()).filter(Boolean);
  if (tech.length) prospect.tech_stack = tech;
  const goal = trimmed('p-goal');
  const anything = Object.keys(prospect).length || goal;
  if (!anything) return undefined; // the backend's default scenario (or a neutral reader)
  if (!prospect.name) throw new Error('Prospect name is required when you describe a prospect.');
  if (!goal) throw new Error('Goal is required: what should the email ask for?');
  const presetId = $('preset').value;
  const preset = form.presets.get(presetId);
  if (preset && samePreset(preset, prospect, goal)) return presetId; // unchanged: send the id
  const scenario = { prospect, goal };
  if (preset && preset.seed_nodes) scenario.seed_nodes = preset.seed_nodes;
  return scenario;
}

function samePreset(preset, prospect, goal) {
  const p = preset.prospect || {};
  for (const key of Object.keys(PROSPECT_FIELDS)) if ((p[key] || '') !== (prospect[key] || '')) return false;
  return (p.tech_stack || []).join(',') === (prospect.tech_stack || []).join(',') && preset.goal === goal;
}

function readSender() {
  if (!form.acceptsSender) return undefined;
  const sender = {};
  for (const [key, field] of Object.entries(SENDER_FIELDS)) {
    const v = trimmed(field);
    if (v) sender[key] = v;
  }
  return Object.keys(sender).length ? sender : undefined;
}

// The request body for POST /api/generate; throws an Error whose message names the field.
export async function readForm() {
  const body = { iterations: readNumber('iterations'), depth: readNumber('depth') };
  const scenario = readScenario();
  if (scenario) body.scenario = scenario;
  const sender = readSender();
  if (sender) body.sender = sender;
  const graph = await readGraphFile($('graph-file'));
  if (graph) body.graph = graph;
  return body;
}
