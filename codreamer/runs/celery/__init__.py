"""The celery executor (DESIGN §6): runs on `codreamer worker` processes on any number
of machines sharing the results store, with Redis as broker and lease holder.
Imported only when CODREAMER_BROKER_URL is set (runs/executors.py decides).

Lowest first: keys (Redis key names) ← leases (the Redis client, run leases, webhook
claims) ← webhook_tasks, run_task ← app (the Celery app and its tasks) ← services
(publish, reaper, store-wide dispatcher) ← executor (the API side) and worker
(`codreamer worker`)."""
