"""Growth over a long run: the prompts critic-loop sends, and the bytes it stores.

`growth` (figure 6): the worker's and the critic's prompt at round N / round 2. One
critic-loop run in memory of `growth_rounds` rounds against an in-process scripted
server that keeps every request. Every draft has the same length and every failing
verdict the same feedback, so any growth comes from what critic-loop re-sends. The size
is the characters of the request's messages as JSON (tokens are about a quarter of it).

`storage`: the bytes a thread stores and the time its checkpoint writes take, at 10, 40
and 100 rounds of distinct 4 KB drafts, on SQLite and PostgreSQL, beside the minimal
LangGraph loop with LangGraph's default list reducers and with `DeltaChannel` (see
`storage_growth`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.performance.report import Figure
from benchmarks.performance.server import LatencyServer, LoopResponder, prompt_sizes
from benchmarks.performance.settings import Settings
from benchmarks.performance.systems import (
    CriticLoopMemory,
    MinimalHistoryLoop,
    PlainLoop,
    minimal_history_bytes,
)
from benchmarks.performance.timing import median, median_interval
from benchmarks.performance.write_timing import WriteTimer, window
from tests.support.long_history import DistinctDrafts, history_bytes, long_run_context
from tests.support.rubrics import RUBRIC, TASK
from tests.support.stored_bytes import fresh_postgres, postgres_bytes, sqlite_bytes

POSTGRES_URL = "CRITIC_LOOP_TEST_POSTGRES_URL"
"""The PostgreSQL server the storage figures use (`.ci/postgres start` prints it)."""


def sizes_by_round(loop: Any, rounds: int, server: LatencyServer) -> dict[str, list[int]]:
    """Run one loop; return the worker's and critic's prompt characters, by round."""
    before_plain = len(server.plain_requests())
    before_structured = len(server.structured_requests())
    made = loop.run("growth" + type(loop).__name__, rounds)
    if made != rounds:
        raise RuntimeError(f"{type(loop).__name__} made {made} rounds, not {rounds}")
    worker = server.plain_requests()[before_plain:]
    critic = server.structured_requests()[before_structured:]
    return {
        "worker": [prompt_sizes(request)["characters"] for request in worker],
        "critic": [prompt_sizes(request)["characters"] for request in critic],
    }


def prompt_growth(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Figure 6: worker and critic prompt size at the last round over round 2."""
    rounds = max(2, settings.growth_rounds)
    with LatencyServer(LoopResponder()) as server:
        critic_loop = sizes_by_round(CriticLoopMemory(server.base_url), rounds, server)
        plain = sizes_by_round(PlainLoop(server.base_url), rounds, server)
    details["growth"] = {"critic-loop": critic_loop, "plain loop": plain}
    figures = []
    for role, target, baseline in (
        ("worker", 1.10, "worker prompt at round 2"),
        ("critic", 1.10, "critic prompt at round 2"),
    ):
        sizes = critic_loop[role]
        figures.append(
            Figure(
                "growth",
                f"{role} prompt, round {rounds} / round 2",
                sizes[rounds - 1] / sizes[1],
                "x",
                baseline,
                target,
                samples={"critic-loop": [float(size) for size in sizes]},
                medians={"round 2": sizes[1], f"round {rounds}": sizes[rounds - 1]},
                notes=[
                    f"{sizes[1]} -> {sizes[rounds - 1]} characters "
                    f"(~{sizes[1] // 4} -> ~{sizes[rounds - 1] // 4} tokens)"
                ],
            )
        )
    return figures


# --- storage: bytes and checkpoint write time over a long run ---------------------------

BACKENDS = ("sqlite", "postgres")
CRITIC_LOOP, DEFAULT_LISTS, DELTA_LISTS = (
    "critic-loop",
    "minimal LangGraph loop, operator.add lists",
    "minimal LangGraph loop, DeltaChannel lists",
)


@dataclass
class StoredRun:
    """One run in a database of its own: what it added to it, what it holds, write times."""

    rounds: int
    stored: int
    held: int
    write_ratio: float | None = None
    """Median write time of the last 5 rounds / of rounds 3..7 (long runs only)."""
    bytes_ratio: float | None = None
    """The same for the bytes those rounds' writes hand the saver."""


@contextmanager
def _database(backend: str, workdir: Path) -> Iterator[tuple[str, Callable[[], int]]]:
    """Yield a new database and a function returning its size in bytes."""
    if backend == "sqlite":
        path = workdir / f"storage-{uuid.uuid4().hex[:8]}.sqlite"
        yield str(path), lambda: sqlite_bytes(path)
        path.unlink(missing_ok=True)
        return
    with fresh_postgres(os.environ[POSTGRES_URL]) as url:
        yield url, lambda: postgres_bytes(url)


def _write_ratio(timer: WriteTimer, rounds: int) -> float | None:
    """Return the CPU time of the last 5 rounds' writes / of rounds 3..7's (medians)."""
    if rounds < 10:
        return None
    return timer.of_rounds(window(rounds, rounds)) / timer.of_rounds(window(5, rounds))


def _bytes_ratio(timer: WriteTimer, rounds: int) -> float | None:
    """Return the bytes the last 5 rounds' writes hand the saver / rounds 3..7's (medians)."""
    if rounds < 10:
        return None
    return timer.bytes_of_rounds(window(rounds, rounds)) / timer.bytes_of_rounds(window(5, rounds))


def critic_loop_run(backend: str, workdir: Path, rounds: int, base_url: str) -> StoredRun:
    """Run critic-loop for `rounds` rounds of distinct 4 KB drafts (memory on)."""
    from critic_loop.persistence import open_persistence
    from critic_loop.run import run_loop

    with _database(backend, workdir) as (database, size):
        with open_persistence(database):
            pass  # its tables, empty: measured after closing (one SQLite library per file)
        empty = size()
        with open_persistence(database) as persistence:
            timer = WriteTimer(persistence.checkpointer)
            state = run_loop(
                TASK,
                RUBRIC,
                context=long_run_context(rounds, base_url),
                checkpointer=persistence.checkpointer,
                store=persistence.store,
            )
        if (state.outcome, state.rounds) != ("exhausted", rounds):
            raise RuntimeError(f"critic-loop ended {state.outcome} after {state.rounds} rounds")
        return StoredRun(
            rounds,
            size() - empty,
            history_bytes(state),
            _write_ratio(timer, rounds),
            _bytes_ratio(timer, rounds),
        )


@contextmanager
def _plain_saver(backend: str, database: str) -> Iterator[Any]:
    """LangGraph's own saver (its own serializer) on `database`.

    The SQLite file is opened as critic-loop opens it (write-ahead log, `synchronous=NORMAL`)
    so that both pay the same for a commit.
    """
    if backend == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        from critic_loop.persistence import sqlite

        connection = sqlite.connect(Path(database))
        try:
            saver = SqliteSaver(connection)
            with sqlite.applied_before(saver):  # set up before, with pysqlite3
                saver.setup()
            yield saver
        finally:
            connection.close()
        return
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(database) as saver:
        saver.setup()
        yield saver


def minimal_run(backend: str, workdir: Path, rounds: int, delta: bool) -> StoredRun:
    """Run the minimal history loop for `rounds` rounds on LangGraph's own saver."""
    with _database(backend, workdir) as (database, size):
        with _plain_saver(backend, database):
            pass
        empty = size()
        with _plain_saver(backend, database) as saver:
            timer = WriteTimer(saver)
            values = MinimalHistoryLoop(saver, delta).run(rounds)
        return StoredRun(
            rounds,
            size() - empty,
            minimal_history_bytes(values),
            _write_ratio(timer, rounds),
            _bytes_ratio(timer, rounds),
        )


def _storage_figures(
    backend: str, runs: dict[str, dict[int, StoredRun]], ratios: dict[str, list[float]], last: int
) -> list[Figure]:
    ours = runs[CRITIC_LOOP]
    short = min(rounds for rounds in ours if rounds > 1)

    def beyond(system: str) -> float:
        done = runs[system]
        return (done[last].stored - done[1].stored) / done[last].held

    def kib(run: StoredRun) -> str:
        return f"{run.rounds} rounds: {run.stored / 1024:.0f} KiB for {run.held / 1024:.0f} KiB"

    label = "SQLite" if backend == "sqlite" else "PostgreSQL"

    def growth(system: str) -> float:
        return runs[system][last].stored / runs[system][short].stored

    def written(system: str) -> str:
        ratio = runs[system][last].bytes_ratio
        return "-" if ratio is None else f"{ratio:.2f}x"

    floors = [
        f"{system}: {beyond(system):.2f}x, {growth(system):.1f}x {last} / {short} rounds, "
        f"write time {median(ratios[system]):.2f}x, bytes written {written(system)}"
        for system in (DEFAULT_LISTS, DELTA_LISTS)
    ]
    return [
        Figure(
            "storage",
            f"{label}: bytes stored at {last} rounds beyond a 1-round run's / its history",
            beyond(CRITIC_LOOP),
            "x",
            "drafts, critiques and feedback as JSON",
            3.0,
            samples={
                system: [float(r.stored) for r in done.values()] for system, done in runs.items()
            },
            medians={
                f"{system} {n}": float(r.stored)
                for system, done in runs.items()
                for n, r in done.items()
            },
            notes=[", ".join(kib(run) for run in ours.values()), *floors],
        ),
        Figure(
            "storage",
            f"{label}: bytes stored, {last} rounds / {short} rounds",
            ours[last].stored / ours[short].stored,
            "x",
            f"the {short}-round run",
            12.0,
        ),
        Figure(
            "storage",
            f"{label}: checkpoint write time of round {last} / round 5",
            median(ratios[CRITIC_LOOP]),
            "x",
            "round 5 (rounds 3..7), same run",
            1.3,
            samples=ratios,
            interval=median_interval(ratios[CRITIC_LOOP]),
            notes=[
                f"bytes its writes hand the saver, round {last} / round 5: "
                f"{written(CRITIC_LOOP)} (LangGraph's default lists: {written(DEFAULT_LISTS)})",
                f"median over {len(ratios[CRITIC_LOOP])} run(s) of the last "
                f"{len(window(last, last))} rounds' median write time / rounds 3..7's; the "
                "CPU time of the saver's put and put_writes (thread_time): the waits for the "
                "disk and for other processes swamp a write of 1 to 2 ms on a shared machine",
            ],
        ),
    ]


def _measure_storage(
    backend: str, settings: Settings, workdir: Path
) -> tuple[dict[str, dict[int, StoredRun]], dict[str, list[float]]]:
    last = settings.storage_rounds
    lengths = sorted({1, settings.storage_rounds_short, settings.storage_rounds_mid, last})
    runs: dict[str, dict[int, StoredRun]] = {
        name: {} for name in (CRITIC_LOOP, DEFAULT_LISTS, DELTA_LISTS)
    }
    ratios: dict[str, list[float]] = {name: [] for name in runs}
    with LatencyServer(DistinctDrafts(), keep_requests=False) as server:
        systems: dict[str, Callable[[int], StoredRun]] = {
            CRITIC_LOOP: lambda n: critic_loop_run(backend, workdir, n, server.base_url),
            DEFAULT_LISTS: lambda n: minimal_run(backend, workdir, n, delta=False),
            DELTA_LISTS: lambda n: minimal_run(backend, workdir, n, delta=True),
        }
        for rounds in lengths[:-1]:
            for name, run in systems.items():
                runs[name][rounds] = run(rounds)
        for _ in range(settings.storage_repeats):
            for name, run in systems.items():
                done = run(last)
                runs[name].setdefault(last, done)
                if done.write_ratio is not None:
                    ratios[name].append(done.write_ratio)
    return runs, ratios


def storage_growth(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Bytes stored and checkpoint write time over long runs, critic-loop beside the minimal loop.

    Each run gets a database of its own (a SQLite file; a new PostgreSQL database): its
    bytes are what it added to the empty, set-up database. critic-loop runs with distinct
    4 KB drafts and a critic that never passes, over HTTP to an in-process scripted
    server, memory on. The minimal LangGraph loop appends the same drafts (and a small
    verdict) with no model, on LangGraph's own saver, with its default `operator.add`
    lists and with `DeltaChannel` lists. Write times come from the runs of the longest
    length, repeated `storage_repeats` times.
    """
    last = settings.storage_rounds
    figures: list[Figure] = []
    details["storage"] = {}
    for backend in BACKENDS:
        if backend == "postgres" and not os.environ.get(POSTGRES_URL):
            figures.append(
                Figure("storage", "PostgreSQL", None, "", "-", skipped=f"no {POSTGRES_URL}")
            )
            continue
        runs, ratios = _measure_storage(backend, settings, workdir)
        details["storage"][backend] = {
            "runs": {name: [asdict(run) for run in done.values()] for name, done in runs.items()},
            "write_ratios": ratios,
        }
        figures += _storage_figures(backend, runs, ratios, last)
    return figures
