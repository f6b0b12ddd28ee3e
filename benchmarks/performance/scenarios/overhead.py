"""Figures 1 and 2: per-round orchestration overhead against a plain Python loop.

Every system runs whole loops (the critic fails until the last round) against one
scripted server; repeats are interleaved and each system's per-round time is divided by
the plain loop's in the same repeat. The median of those paired ratios is the figure.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from benchmarks.performance.report import Figure
from benchmarks.performance.server import ServerProcess
from benchmarks.performance.settings import Settings
from benchmarks.performance.systems import (
    CriticLoopMemory,
    CriticLoopSqlite,
    Loop,
    MinimalGraphLoop,
    PlainLoop,
    ReflectionLoop,
    reflection_available,
    sqlite_persistence,
)
from benchmarks.performance.timing import (
    interleaved,
    median,
    median_interval,
    paired_ratios,
    timed,
)

PLAIN = "plain loop"
REFLECTION = "langgraph-reflection"
MEMORY = "critic-loop in memory"
SQLITE = "critic-loop SQLite"
SQLITE_ASYNC_DURABILITY = "critic-loop SQLite durability=async"
FLOOR_MEMORY = "minimal LangGraph loop in memory"
FLOOR_SQLITE = "minimal LangGraph loop SQLite"
FLOORS = {
    FLOOR_MEMORY: (MEMORY, "in memory (InMemorySaver)"),
    FLOOR_SQLITE: (SQLITE, "on the same SQLite file, durability='sync'"),
}


def per_round(loop: Loop, rounds: int) -> Callable[[], float]:
    """Return an action that runs one loop on a new thread and gives seconds per round."""

    def action() -> float:
        made = 0

        def run() -> None:
            nonlocal made
            made = loop.run(uuid.uuid4().hex[:12], rounds)

        seconds = timed(run)
        if made != rounds:
            raise RuntimeError(f"{type(loop).__name__} made {made} rounds, not {rounds}")
        return seconds / rounds

    return action


def measure(
    latency: float, rounds: int, repeats: int, warmup: int, diagnostics: bool
) -> tuple[dict[str, list[float]], list[str]]:
    """Time every system's loops, interleaved; return seconds per round by system, and notes."""
    notes = []
    with ExitStack() as stack:
        server = stack.enter_context(ServerProcess(latency))
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-")))
        persistence = stack.enter_context(sqlite_persistence(workdir))
        loops: dict[str, Loop] = {PLAIN: PlainLoop(server.base_url)}
        if reflection_available():
            loops[REFLECTION] = ReflectionLoop(server.base_url)
        else:
            notes.append("langgraph-reflection is not installed (pip install -e '.[bench]')")
        loops[MEMORY] = CriticLoopMemory(server.base_url)
        loops[SQLITE] = CriticLoopSqlite(server.base_url, persistence)
        loops[FLOOR_MEMORY] = MinimalGraphLoop(server.base_url, InMemorySaver())
        loops[FLOOR_SQLITE] = MinimalGraphLoop(
            server.base_url, persistence.checkpointer, durability="sync"
        )
        if diagnostics:
            loops[SQLITE_ASYNC_DURABILITY] = CriticLoopSqlite(
                server.base_url, persistence, durability="async"
            )
        actions = {name: per_round(loop, rounds) for name, loop in loops.items()}
        return interleaved(actions, repeats, warmup), notes


def ratio_figures(
    scenario: str,
    samples: dict[str, list[float]],
    notes: list[str],
    memory_target: float,
    sqlite_target: float,
) -> list[Figure]:
    """Turn per-round samples into ratio figures against the plain loop."""
    medians = {name: median(values) for name, values in samples.items()}
    ratios = {name: paired_ratios(values, samples[PLAIN]) for name, values in samples.items()}
    common: dict[str, Any] = {"samples": samples, "medians": medians}
    baseline = f"{PLAIN} (per round)"

    def ratio_figure(system: str, target: float | None = None, **extra: Any) -> Figure:
        """Build the figure of `system`'s per-round ratio: its median, the median's interval."""
        figure = Figure(scenario, f"{system} / {PLAIN}", None, "x", baseline, target, **extra)
        if system in ratios:
            figure.value = median(ratios[system])
            figure.interval = median_interval(ratios[system])
        return figure

    figures = [
        ratio_figure(MEMORY, memory_target, **common),
        ratio_figure(SQLITE, sqlite_target),
        ratio_figure(REFLECTION),
    ]
    if REFLECTION not in samples:
        figures[-1].skipped = notes[0] if notes else "langgraph-reflection not measured"
    if SQLITE_ASYNC_DURABILITY in samples:
        figures.append(
            ratio_figure(
                SQLITE_ASYNC_DURABILITY,
                notes=["diagnostic: what durability='sync' costs on SQLite"],
            )
        )
    for floor, (system, where) in FLOORS.items():
        if floor in samples:
            figures.append(
                ratio_figure(
                    floor,
                    notes=[
                        f"diagnostic: the floor for {system}: the plain loop's two calls as "
                        f"two trivial LangGraph steps a round, {where}"
                    ],
                )
            )
    figures[0].notes = [
        *notes,
        "ratios are medians of per-repeat paired ratios; [a, b] is the median's 95% "
        "bootstrap interval over the repeats",
    ]
    return figures


def zero_latency(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Figure 1: per-round overhead with zero model latency."""
    samples, notes = measure(
        0.0, settings.overhead_rounds, settings.overhead_repeats, settings.warmup, True
    )
    figures = ratio_figures("overhead@0ms", samples, notes, 1.10, 1.30)
    if REFLECTION in samples:
        memory = figures[0].value
        reflection = figures[2].value
        figures.insert(
            1,
            Figure(
                "overhead@0ms",
                f"{MEMORY} minus {REFLECTION} ratio",
                None if memory is None or reflection is None else memory - reflection,
                "x",
                f"{REFLECTION} / {PLAIN}",
                0.0,
                comparison="<",
                notes=["negative: critic-loop in memory is below langgraph-reflection's ratio"],
            ),
        )
    details["overhead"] = {"seconds_per_round": samples}
    return figures


def with_latency(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Figure 2: per-round overhead with `latency_seconds` per model call."""
    samples, notes = measure(
        settings.latency_seconds,
        settings.latency_rounds,
        settings.latency_repeats,
        settings.warmup,
        False,
    )
    label = f"overhead@{settings.latency_seconds * 1000:.0f}ms"
    details["latency"] = {"seconds_per_round": samples}
    return ratio_figures(label, samples, notes, 1.03, 1.08)
