// What to say under the followed run's status line. Only what the backend's
// GET /runs/{id} (status, error, and its webhook outbox summary) supports: the page
// says "no webhook arrived" only when the backend's outbox says the final event failed.

export function runNote(run, latest, origin) {
  if (!run) return null;
  const id = run.run_id;
  const hasFinal = Boolean(latest && latest.run_id === id && latest.stage === 'final');
  switch (run.status) {
    case 'interrupted':
      return {
        warn: true,
        text: 'This run stopped before it finished (the backend restarted or its process died). '
          + 'Resume continues from its last complete iteration and ends as an uninterrupted run would; '
          + 'Cancel ends it here.',
      };
    case 'failed':
      return { warn: true, text: `The run failed${run.error ? `: ${run.error}` : ''}. Resume tries again from its last complete iteration.` };
    case 'cancelled':
      return { warn: false, text: 'The run was cancelled. Resume continues it from its last complete iteration.' };
    case 'unknown':
      return { warn: true, text: run.error || 'The backend does not know this run.' };
    case 'succeeded':
      return hasFinal ? null : webhookNote(run, origin);
    default:
      return null;
  }
}

function webhookNote(run, origin) {
  const w = run.webhooks || {};
  const redeliver = `uv run codreamer webhooks redeliver ${run.run_id}`;
  switch (w.final) {
    case 'gave_up':
      return {
        warn: true,
        text: `The run finished, but its final webhook never reached this dashboard: the backend gave up delivering it (see the run's webhooks.jsonl). Send it again from the backend's directory with: ${redeliver}`,
      };
    case 'pending':
      return { warn: false, text: 'The run finished; its final webhook has not arrived yet and the backend is still delivering it.' };
    case 'delivered':
      return {
        warn: true,
        text: `The backend delivered the final webhook, but not to this dashboard: set FRONTEND_URL on the backend to ${origin}/api/final-email.`,
      };
    case 'skipped':
      return {
        warn: true,
        text: `The backend has no webhook address (FRONTEND_URL is unset), so it sent nothing here. Set FRONTEND_URL=${origin}/api/final-email on the backend, or start both with: uv run codreamer serve`,
      };
    default:
      // An older backend without per-event outbox information: claim nothing.
      return { warn: false, text: 'The run finished; waiting for its final webhook.' };
  }
}
