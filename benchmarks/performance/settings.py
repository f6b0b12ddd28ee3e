"""How much each scenario measures: the full run's sizes, and `--quick`'s smaller ones.

Every field can be changed on the command line with `--set FIELD=VALUE`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Settings:
    """Sizes, repeats and latencies of every scenario."""

    overhead_rounds: int = 10
    overhead_repeats: int = 25
    latency_rounds: int = 5
    latency_repeats: int = 9
    latency_seconds: float = 0.05
    concurrent_loops: int = 100
    concurrent_rounds: int = 5
    concurrent_repeats: int = 3
    served_runs: int = 200
    served_rounds: int = 3
    served_latency_seconds: float = 0.2
    served_jobs_per_worker: int = 200
    served_single_repeats: int = 3
    recall_rules: int = 10_000
    recall_samples: int = 40
    recall_k: int = 5
    recall_call_seconds: float = 0.2
    recall_call_samples: int = 5
    growth_rounds: int = 10
    storage_rounds_short: int = 10
    storage_rounds_mid: int = 40
    storage_rounds: int = 100
    storage_repeats: int = 5
    flight_latency_seconds: float = 0.5
    flight_rounds: int = 3
    flight_loops: int = 100
    flight_many: int = 1000
    flight_repeats: int = 3
    flight_cpu_loops: int = 50
    profile_rounds: int = 30
    thread_rounds: int = 10
    warmup: int = 1

    def as_json(self) -> dict[str, Any]:
        """Return the settings as a plain dict."""
        return {item.name: getattr(self, item.name) for item in fields(self)}


FULL = Settings()
"""The full run: the sizes the issue asks for."""

QUICK = Settings(
    overhead_repeats=3,
    latency_repeats=2,
    concurrent_loops=50,
    concurrent_repeats=1,
    served_runs=20,
    served_jobs_per_worker=20,
    served_single_repeats=1,
    recall_rules=2_000,
    recall_samples=10,
    recall_call_samples=2,
    profile_rounds=10,
    storage_rounds_short=5,
    storage_rounds_mid=10,
    storage_rounds=20,
    storage_repeats=1,
    flight_latency_seconds=0.2,
    flight_loops=20,
    flight_many=100,
    flight_repeats=1,
    flight_cpu_loops=10,
)
"""Few repeats and smaller sizes, for CI (timings are not asserted there)."""


def with_overrides(settings: Settings, assignments: list[str]) -> Settings:
    """Apply `FIELD=VALUE` assignments to `settings`.

    Raises:
        ValueError: an assignment names no field or has a value of the wrong type.
    """
    known = {item.name: item for item in fields(settings)}
    changes: dict[str, Any] = {}
    for assignment in assignments:
        name, separator, text = assignment.partition("=")
        if not separator or name not in known:
            raise ValueError(
                f"--set {assignment!r}: expected FIELD=VALUE with FIELD in {sorted(known)}"
            )
        kind = type(getattr(settings, name))
        changes[name] = kind(text)
    return replace(settings, **changes)
