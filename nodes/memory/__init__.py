"""Long-term memory: recall before a run, usage after it, and rules distilled from it."""
