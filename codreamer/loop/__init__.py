"""The learn-loop: generate, score, GRPO, KG weights; evaluation; run artifacts."""
