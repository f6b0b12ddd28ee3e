"""Benchmarks for critic-loop (not part of the installed package)."""
