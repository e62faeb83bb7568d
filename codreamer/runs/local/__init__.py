"""The local executor (DESIGN §6), the default: a bounded pool of run processes in
the API's machine, liveness by `flock`. process (one run's process) ← executor (the
pool, the queue, cancel and resume, the store-wide webhook dispatcher)."""
