"""Timing on a noisy machine: interleaved repeats, medians, percentiles and paired ratios.

Systems are never timed one after another in blocks: each repeat runs every system once,
in the same order (A B C A B C ...), so drift in the machine's load hits all of them
alike, and a ratio is taken within each repeat (paired) before its median is reported.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence


def timed(action: Callable[[], object]) -> float:
    """Run `action` once and return the seconds it took (a monotonic, high-resolution clock)."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def interleaved(
    actions: Mapping[str, Callable[[], float]], repeats: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Run every action once per repeat, in order, after `warmup` unrecorded rounds.

    Each action returns its own measurement (so it can leave set-up out of it).
    Returns each action's samples in repeat order.
    """
    for _ in range(warmup):
        for action in actions.values():
            action()
    samples: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(repeats):
        for name, action in actions.items():
            samples[name].append(action())
    return samples


def median(values: Sequence[float]) -> float:
    """Return the median of `values` (NaN when there are none)."""
    return statistics.median(values) if values else math.nan


def percentile(values: Sequence[float], share: float) -> float:
    """Return the `share` (0..1) percentile of `values`, interpolating between ranks."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = share * (len(ordered) - 1)
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def paired_ratios(numerator: Sequence[float], denominator: Sequence[float]) -> list[float]:
    """Return the ratio of each repeat's two samples (they were measured side by side)."""
    return [top / bottom for top, bottom in zip(numerator, denominator, strict=True)]


def median_interval(
    values: Sequence[float], share: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float] | None:
    """Return a `share` bootstrap interval of the median of `values` (None for fewer than 5).

    The repeats are resampled with replacement `resamples` times (seeded, so a report is
    reproducible from its samples); the interval holds the middle `share` of the medians.
    """
    if len(values) < 5:
        return None
    draw = random.Random(seed)
    medians = sorted(
        statistics.median(draw.choices(values, k=len(values))) for _ in range(resamples)
    )
    tail = (1 - share) / 2
    return percentile(medians, tail), percentile(medians, 1 - tail)
