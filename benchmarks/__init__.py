"""Benchmarks of critic-loop, run from a checkout (they are not part of the wheel).

- `benchmarks.effectiveness`: does the loop beat one shot, with real models?
- `benchmarks.performance`: what the orchestration costs against baselines.
"""
