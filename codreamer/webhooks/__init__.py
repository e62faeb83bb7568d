"""Durable webhook delivery (DESIGN §7): the envelope (ids, headers, signatures), the
per-run outbox (`webhooks.jsonl`), the retry schedule, one HTTP attempt, and the
dispatcher that delivers pending events whichever process produced them.

Nothing here imports FastAPI or the run machinery: the loop hands payloads to an
`Outbox`, and any process with access to the results store delivers them."""
