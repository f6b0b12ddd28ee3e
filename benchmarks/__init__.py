"""Benchmarks of critic-loop, run from a checkout (they are not part of the wheel).

- `benchmarks.effectiveness`: does the loop beat one shot, with real models?
- `benchmarks.judge`: how often is the critic's judge right?
- `benchmarks.memory`: does memory help the next task of the same kind?
- `benchmarks.harness`: what those three share (report, run, command line, tables).
- `benchmarks.performance`: what the orchestration costs against baselines.
"""
