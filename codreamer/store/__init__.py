"""The run store (DESIGN §5, §10): run paths and ids, atomic writes, the typed
meta.json, the event log, the run list and the run-status vocabulary. It sits below
the loop, the trainers, the webhooks and the executors, and imports none of them."""
