"""Training: GRPO for the embedded policy, the ART adapter, the oracle."""
