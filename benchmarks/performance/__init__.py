"""critic-loop's performance benchmark suite.

Every figure is a ratio or a count against a baseline measured in the same run, with
repeats interleaved (A B C A B C ...) and medians reported, because the machines it runs
on are shared and noisy. Run it with `python -m benchmarks.performance` (see README.md
beside this file).
"""
