"""Figure 3: many loops at once in one process, under asyncio, on the async SQLite saver.

Each repeat times one loop alone, then `concurrent_loops` loops started together with
`asyncio.gather`; the figure is the total wall time over the lone loop's (paired per
repeat). With model calls that wait (`latency_seconds`), perfect concurrency gives 1x.
The plain loop (`ainvoke` on the same clients) is measured the same way, interleaved: one
Python process's CPU caps any system, and the plain loop shows where that floor is. So is
the minimal LangGraph loop (the plain loop's calls as two trivial async nodes) on the same
async SQLite saver: the floor for any LangGraph loop with checkpoints.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks.performance.report import Figure
from benchmarks.performance.server import ServerProcess
from benchmarks.performance.settings import Settings
from benchmarks.performance.systems import (
    AsyncCriticLoopSqlite,
    MinimalGraphLoop,
    PlainLoop,
    async_sqlite_persistence,
)
from benchmarks.performance.timing import median, paired_ratios

ONE, MANY = "one loop", "many loops"
PLAIN_ONE, PLAIN_MANY = "plain: one loop", "plain: many loops"
GRAPH_ONE, GRAPH_MANY = "minimal LangGraph: one loop", "minimal LangGraph: many loops"


async def _loops(run: Callable[[str, int], Awaitable[int]], count: int, rounds: int) -> float:
    """Run `count` loops at once; return the wall time, after checking each one's rounds."""
    start = time.perf_counter()
    made = await asyncio.gather(*(run(uuid.uuid4().hex[:12], rounds) for _ in range(count)))
    seconds = time.perf_counter() - start
    if any(rounds_made != rounds for rounds_made in made):
        raise RuntimeError(f"a concurrent loop did not make {rounds} rounds: {made}")
    return seconds


async def _measure(settings: Settings, base_url: str, workdir: Path) -> dict[str, list[float]]:
    names = (ONE, MANY, PLAIN_ONE, PLAIN_MANY, GRAPH_ONE, GRAPH_MANY)
    samples: dict[str, list[float]] = {name: [] for name in names}
    rounds, count = settings.concurrent_rounds, settings.concurrent_loops
    async with async_sqlite_persistence(workdir) as persistence:
        ours = AsyncCriticLoopSqlite(base_url, persistence).run
        plain = PlainLoop(base_url).arun
        graph = MinimalGraphLoop(base_url, persistence.checkpointer, durability="sync").arun
        for _ in range(settings.warmup):
            for run in (ours, plain, graph):
                await _loops(run, 1, rounds)
        for _ in range(settings.concurrent_repeats):
            for run, one, many in (
                (ours, ONE, MANY),
                (plain, PLAIN_ONE, PLAIN_MANY),
                (graph, GRAPH_ONE, GRAPH_MANY),
            ):
                samples[one].append(await _loops(run, 1, rounds))
                samples[many].append(await _loops(run, count, rounds))
    return samples


def many_loops(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Figure 3: total wall time of many concurrent loops / one loop's wall time."""
    with (
        ServerProcess(settings.latency_seconds) as server,
        tempfile.TemporaryDirectory(prefix="bench-concurrent-") as scratch,
    ):
        samples = asyncio.run(_measure(settings, server.base_url, Path(scratch)))
    ratios = paired_ratios(samples[MANY], samples[ONE])
    plain_ratios = paired_ratios(samples[PLAIN_MANY], samples[PLAIN_ONE])
    graph_ratios = paired_ratios(samples[GRAPH_MANY], samples[GRAPH_ONE])
    details["concurrent"] = {
        "wall_seconds": samples,
        "ratios": ratios,
        "plain": plain_ratios,
        "minimal LangGraph": graph_ratios,
    }
    loops = settings.concurrent_loops
    return [
        Figure(
            "concurrent",
            f"{loops} async loops at once / one loop (wall time)",
            median(ratios),
            "x",
            f"1 loop alone, {settings.concurrent_rounds} rounds",
            2.0,
            samples=samples,
            medians={name: median(values) for name, values in samples.items()},
            notes=[
                f"{settings.latency_seconds * 1000:.0f} ms per model call; arun_loop on "
                "aopen_persistence (AsyncSqliteSaver + AsyncSqliteStore) in one event loop"
            ],
        ),
        Figure(
            "concurrent",
            f"plain loop: {loops} async loops at once / one loop (wall time)",
            median(plain_ratios),
            "x",
            "1 plain loop alone (ainvoke)",
            notes=["the floor one Python process reaches with the same model calls"],
        ),
        Figure(
            "concurrent",
            f"minimal LangGraph loop: {loops} async loops at once / one loop (wall time)",
            median(graph_ratios),
            "x",
            "1 minimal LangGraph loop alone (ainvoke)",
            notes=[
                "the floor for a LangGraph loop: the same calls as two trivial async nodes, "
                "on the same AsyncSqliteSaver, durability='sync'"
            ],
        ),
    ]
