// Copy, Export and Rate for the email on screen. A rating names the email by the
// `email_key` the backend gives for it (GET /runs/{id}: latest_email, its greedy email
// and each prospect's), matched here by subject and body.

const $ = (id) => document.getElementById(id);

const tools = { email: null, runId: null, key: null, value: null, postJson: null, describe: null };

function records(run) {
  const le = run && run.latest_email;
  if (!le) return [];
  const out = [le, le.greedy_email, ...(Array.isArray(le.per_prospect) ? le.per_prospect : [])];
  return out.filter((r) => r && r.email && typeof r.email_key === 'string');
}

export function emailKey(run, email) {
  if (!email) return null;
  const same = records(run).find((r) => r.email.subject === email.subject && r.email.body === email.body);
  return same ? same.email_key : null;
}

function plainText(email) {
  const cites = (email.citations || []).length ? `\n\nCitations: ${email.citations.join('; ')}` : '';
  return `Subject: ${email.subject}\n\n${email.body}${cites}\n`;
}

// The email shown changed: reset the rating and remember what to copy, export and rate.
export function setShownEmail(latest, run, isMock) {
  const box = $('email-actions');
  const email = latest && latest.email;
  box.hidden = !email;
  if (!email) { tools.email = null; return; }
  const key = isMock ? null : emailKey(run, email);
  const changed = !tools.email || tools.email.subject !== email.subject || tools.email.body !== email.body;
  tools.email = email;
  tools.runId = latest.run_id;
  tools.key = key;
  if (changed) {
    tools.value = null;
    $('rate-stars').value = '';
    $('rate-note').value = '';
    $('rate-status').textContent = '';
    $('tool-status').textContent = '';
    document.querySelectorAll('.rate-thumb').forEach((b) => b.setAttribute('aria-pressed', 'false'));
  }
  $('rate-form').querySelector('fieldset').disabled = !key;
  if (!key) {
    $('rate-status').textContent = isMock ? 'Sample content cannot be rated.'
      : 'Rating opens when the backend has this email on record (it gives its key with the run\'s status).';
  } else if ($('rate-status').textContent.startsWith('Rating opens')) {
    $('rate-status').textContent = '';
  }
}

async function copy() {
  const text = plainText(tools.email);
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard API (a page served over plain http on another host): select and copy.
    const area = document.createElement('textarea');
    area.value = text;
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  $('tool-status').textContent = 'Copied: subject, body and citations.';
}

function exportEmail() {
  const data = { run_id: tools.runId, email_key: tools.key, ...tools.email };
  const blob = new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `codreamer-email-${tools.runId || 'email'}.json`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  $('tool-status').textContent = `Exported ${a.download}.`;
}

function choose(value) {
  tools.value = value;
  document.querySelectorAll('.rate-thumb').forEach((b) => {
    b.setAttribute('aria-pressed', String(Number(b.dataset.value) === value && $('rate-stars').value === ''));
  });
}

async function send(event) {
  event.preventDefault();
  const status = $('rate-status');
  if (tools.value === null) { status.textContent = 'Pick thumbs up, thumbs down or a number from 1 to 5 first.'; return; }
  const note = $('rate-note').value.trim();
  const body = { run_id: tools.runId, email_key: tools.key, value: tools.value };
  if (note) body.note = note;
  $('rate-send').disabled = true;
  try {
    const r = await tools.postJson('/api/feedback', body);
    status.textContent = r.ok ? 'Thanks: rating recorded. The agent\'s next run learns from it.' : tools.describe(r);
  } catch {
    status.textContent = 'The dashboard could not be reached; try again.';
  } finally {
    $('rate-send').disabled = false;
  }
}

export function initEmailTools(postJson, describe) {
  tools.postJson = postJson;
  tools.describe = describe;
  $('copy-email').addEventListener('click', () => { if (tools.email) copy(); });
  $('export-email').addEventListener('click', () => { if (tools.email) exportEmail(); });
  document.querySelectorAll('.rate-thumb').forEach((b) => b.addEventListener('click', () => {
    $('rate-stars').value = '';
    choose(Number(b.dataset.value));
  }));
  $('rate-stars').addEventListener('change', (e) => {
    const n = Number(e.target.value);
    choose(n ? (n - 1) / 4 : null);
  });
  $('rate-form').addEventListener('submit', send);
}
