"""What the tests and benchmarks share (DESIGN §10): servers on loopback
(`server`, `api`, `cluster`), the CLI runner (`cli`), the browser (`browser`),
and the test doubles and probes (`receiver`, `openai_server`, `event_gate`)."""
