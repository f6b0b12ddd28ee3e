"""Many loops in flight in one process, at a realistic model latency.

`arun_loop` on the async SQLite saver and store, `flight_rounds` rounds per loop and
`flight_latency_seconds` per model call (the scripted server runs in a child process),
all loops started at once with `asyncio.gather` in one event loop:

- **100 at once / one alone** (wall time, paired per repeat, repeats interleaved): with
  calls that wait, perfect concurrency is 1x. The plain loop (`ainvoke` on the same
  clients) and the minimal LangGraph loop (two trivial async nodes, same async saver) are
  measured the same way, as floors.
- **The sweep**: 1, 10, 100, 300 and `flight_many` loops at once, each once: wall time /
  one loop's, rounds per second, and the memory a loop holds while in flight (the peak
  resident set size sampled every 20 ms during the batch, less the size before it,
  divided by the loops). Where the ratio leaves 1x is where one process stops scaling.
- **The CPU bound**: one Python process orchestrates on one core, so it cannot make more
  rounds per second than 1 / (CPU seconds per round). That is measured at zero latency
  (`flight_cpu_loops` loops at once; the process's CPU time over the rounds they made)
  and shown beside the rounds per second of `flight_many` loops.
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
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
from benchmarks.performance.timing import median, median_interval, paired_ratios

Run = Callable[[str, int], Awaitable[int]]

CRITIC_LOOP, PLAIN, MINIMAL = "critic-loop", "plain loop", "minimal LangGraph loop"


def resident_bytes() -> int:
    """Return this process's resident set size (Linux `/proc/self/statm`)."""
    import os

    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@contextmanager
def peak_resident(every: float = 0.02) -> Iterator[dict[str, int]]:
    """Sample the resident set size while the block runs; yield {"before", "peak"}."""
    found = {"before": resident_bytes(), "peak": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(every):
            found["peak"] = max(found["peak"], resident_bytes())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield found
    finally:
        done.set()
        sampler.join()
        found["peak"] = max(found["peak"], resident_bytes())


async def loops_at_once(run: Run, count: int, rounds: int) -> dict[str, float]:
    """Run `count` loops at once; return wall and CPU seconds and the memory they held."""
    import gc

    gc.collect()
    with peak_resident() as memory:
        cpu, start = time.process_time(), time.perf_counter()
        made = await asyncio.gather(*(run(uuid.uuid4().hex[:12], rounds) for _ in range(count)))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if any(rounds_made != rounds for rounds_made in made):
        raise RuntimeError(f"a loop did not make {rounds} rounds: {sorted(set(made))}")
    held = max(0, memory["peak"] - memory["before"])
    return {"loops": count, "wall": wall, "cpu": cpu, "bytes_per_loop": held / count}


async def _systems(base_url: str, persistence: Any) -> dict[str, Run]:
    return {
        CRITIC_LOOP: AsyncCriticLoopSqlite(base_url, persistence).run,
        PLAIN: PlainLoop(base_url).arun,
        MINIMAL: MinimalGraphLoop(base_url, persistence.checkpointer, durability="sync").arun,
    }


async def _ratios(settings: Settings, base_url: str, workdir: Path) -> dict[str, Any]:
    """100 at once / one alone, for each system, repeats interleaved."""
    rounds, count = settings.flight_rounds, settings.flight_loops
    samples: dict[str, dict[str, list[float]]] = {}
    async with async_sqlite_persistence(workdir) as persistence:
        systems = await _systems(base_url, persistence)
        for run in systems.values():
            await loops_at_once(run, 1, rounds)
        for _ in range(settings.flight_repeats):
            for name, run in systems.items():
                one = await loops_at_once(run, 1, rounds)
                many = await loops_at_once(run, count, rounds)
                found = samples.setdefault(name, {"one": [], "many": []})
                found["one"].append(one["wall"])
                found["many"].append(many["wall"])
    return samples


async def _sweep(settings: Settings, base_url: str, workdir: Path) -> list[dict[str, float]]:
    """Loops at once, from one to `flight_many`: wall, CPU and memory per batch."""
    many = settings.flight_many
    counts = sorted({count for count in (1, 10, settings.flight_loops, 300, many) if count <= many})
    rounds = settings.flight_rounds
    async with async_sqlite_persistence(workdir) as persistence:
        run = AsyncCriticLoopSqlite(base_url, persistence).run
        await loops_at_once(run, 1, rounds)
        return [await loops_at_once(run, count, rounds) for count in counts]


async def _cpu_per_round(settings: Settings, base_url: str, workdir: Path) -> float:
    """CPU seconds this process spends per round of critic-loop at zero model latency."""
    rounds, count = settings.flight_rounds, settings.flight_cpu_loops
    async with async_sqlite_persistence(workdir) as persistence:
        run = AsyncCriticLoopSqlite(base_url, persistence).run
        await loops_at_once(run, 1, rounds)
        batch = await loops_at_once(run, count, rounds)
    return batch["cpu"] / (count * rounds)


async def _measure(
    settings: Settings, instant: str, waiting: str, scratch: Path
) -> tuple[float, dict[str, Any], list[dict[str, float]]]:
    """Everything in one event loop (the chat models' async clients belong to it)."""
    cpu_per_round = await _cpu_per_round(settings, instant, scratch / "cpu")
    samples = await _ratios(settings, waiting, scratch / "ratios")
    sweep = await _sweep(settings, waiting, scratch / "sweep")
    return cpu_per_round, samples, sweep


def many_in_flight(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Loops in flight in one process: 100 at once / one, the sweep, and the CPU bound."""
    rounds = settings.flight_rounds
    latency_ms = settings.flight_latency_seconds * 1000
    with (
        tempfile.TemporaryDirectory(prefix="bench-flight-") as scratch,
        ServerProcess(0.0) as instant,
        ServerProcess(settings.flight_latency_seconds) as server,
    ):
        for name in ("cpu", "ratios", "sweep"):
            (Path(scratch) / name).mkdir()
        cpu_per_round, samples, sweep = asyncio.run(
            _measure(settings, instant.base_url, server.base_url, Path(scratch))
        )
    ratios = {name: paired_ratios(found["many"], found["one"]) for name, found in samples.items()}
    one = median(samples[CRITIC_LOOP]["one"])
    bound = 1 / cpu_per_round
    details["in_flight"] = {
        "ratios": ratios,
        "wall_seconds": samples,
        "sweep": sweep,
        "cpu_seconds_per_round": cpu_per_round,
    }
    many = sweep[-1]
    rate = many["loops"] * rounds / many["wall"]
    knee = [
        f"{int(batch['loops'])} at once: {batch['wall'] / one:.2f}x one loop's wall, "
        f"{batch['loops'] * rounds / batch['wall']:.0f} rounds/s, "
        f"{batch['bytes_per_loop'] / 1024:.0f} KiB per loop"
        for batch in sweep
    ]
    count = settings.flight_loops
    floors = [
        f"{name}: {median(ratios[name]):.2f}x ({median(samples[name]['many']):.2f} s vs "
        f"{median(samples[name]['one']):.2f} s)"
        for name in (PLAIN, MINIMAL)
    ]
    return [
        Figure(
            "in_flight",
            f"{count} arun_loops at once / one alone (wall, {latency_ms:.0f} ms calls)",
            median(ratios[CRITIC_LOOP]),
            "x",
            f"1 loop alone, {rounds} rounds: {one:.2f} s",
            1.3,
            samples={name: values for name, values in ratios.items()},
            interval=median_interval(ratios[CRITIC_LOOP]),
            notes=[
                "async SQLite saver and store, one event loop, memory off; floors: "
                + "; ".join(floors)
            ],
        ),
        Figure(
            "in_flight",
            f"loops completed of {int(many['loops'])} at once",
            many["loops"],
            "count",
            "all",
            many["loops"],
            "==",
            notes=knee,
        ),
        Figure(
            "in_flight",
            f"rounds per second, {int(many['loops'])} at once",
            rate,
            "rounds/s",
            f"CPU bound {bound:.0f} rounds/s (1 / {cpu_per_round * 1000:.1f} ms CPU per round at "
            "zero latency)",
            notes=[
                f"{rate / bound:.0%} of the CPU bound; {many['wall']:.1f} s wall, "
                f"{many['cpu']:.1f} s CPU for {int(many['loops']) * rounds} rounds"
            ],
        ),
        Figure(
            "in_flight",
            f"peak memory per loop in flight, {int(many['loops'])} at once",
            many["bytes_per_loop"] / 1024,
            "KiB",
            f"{sweep[-2]['bytes_per_loop'] / 1024:.0f} KiB per loop at {int(sweep[-2]['loops'])} "
            "at once",
            notes=["peak resident set during the batch less before it, over the loops"],
        ),
    ]
