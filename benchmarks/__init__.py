"""Benchmarks of critic-loop, run from a checkout (they are not part of the wheel)."""
