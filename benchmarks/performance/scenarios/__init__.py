"""The benchmark's scenarios, by name: each measures its figures against same-run baselines.

A scenario is a function `(settings, workdir, details) -> list[Figure]`; it may add raw
data it gathered to `details` (a dict that goes into the JSON report under its name).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.performance.report import Figure
from benchmarks.performance.scenarios import (
    concurrent,
    growth,
    in_flight,
    overhead,
    profile,
    recall,
    served,
)
from benchmarks.performance.settings import Settings

Scenario = Callable[[Settings, Path, dict[str, Any]], list[Figure]]

SCENARIOS: dict[str, Scenario] = {
    "overhead": overhead.zero_latency,
    "latency": overhead.with_latency,
    "concurrent": concurrent.many_loops,
    "in_flight": in_flight.many_in_flight,
    "served": served.through_the_server,
    "recall": recall.recall_at_size,
    "growth": growth.prompt_growth,
    "storage": growth.storage_growth,
    "profile": profile.where_the_time_goes,
}
"""Every scenario, in the order the full run measures them."""
