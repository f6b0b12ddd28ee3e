"""Where critic-loop's overhead goes: its decomposition, the suspects, threads, a profile.

The decomposition (`decompose.py`) and the suspects timed alone (`micro.py`) are measured
without a profiler, against the overhead per round measured beside the plain loop.

`cProfile` sees only the thread that enables it, and the baselines' critic call runs in a
pool thread (LangChain's parallel runnable behind `with_structured_output(include_raw=True)`),
so each thread started during the profiled run gets a profiler of its own and the
profiles are merged. A function's share is its cumulative time over the run's wall time
(threads that overlap could add up past 100%; waiting on a lock is left out of the tops).

The suspects are named functions whose cumulative time answers one question each (is the
chat model rebuilt per call? what does it cost?); `top_self` and `top_own_code` list what
the profile itself points at. Thread starts are counted over a run by wrapping
`threading.Thread.start`, with the code that asked for each thread.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.performance.report import Figure
from benchmarks.performance.scenarios import micro
from benchmarks.performance.scenarios.decompose import decompose
from benchmarks.performance.server import ServerProcess
from benchmarks.performance.settings import Settings
from benchmarks.performance.systems import (
    CriticLoopMemory,
    CriticLoopSqlite,
    Loop,
    PlainLoop,
    sqlite_persistence,
)

PROJECT = Path(__file__).resolve().parents[3]
FunctionKey = tuple[str, int, str]
PYDANTIC_CORE = "pydantic_core._pydantic_core"


@dataclass(frozen=True)
class Suspect:
    """A known suspect: the functions whose cumulative time measures it."""

    label: str
    functions: tuple[tuple[str, str], ...]
    """(file path suffix, function name) pairs; their cumulative times are added."""


SUSPECTS = (
    Suspect(
        "chat model rebuilt per call (load_chat_model -> init_chat_model)",
        (("nodes/models/loading.py", "load_chat_model"),),
    ),
    Suspect(
        "structured-output runnable made per call (gateway's next_call)",
        (("nodes/models/gateway.py", "next_call"),),
    ),
    Suspect(
        "verdict JSON schema rebuilt per judge call (critic_output_schema)",
        (("nodes/verifiers/judge_answers.py", "critic_output_schema"),),
    ),
    Suspect(
        "thread pool per parallel runnable (executor thread start + shutdown)",
        (
            ("concurrent/futures/thread.py", "_adjust_thread_count"),
            ("concurrent/futures/thread.py", "shutdown"),
        ),
    ),
    Suspect(
        "pydantic validation (SchemaValidator.validate_python)",
        (("~", f"<method 'validate_python' of '{PYDANTIC_CORE}.SchemaValidator' objects>"),),
    ),
    Suspect(
        "pydantic serialization (SchemaSerializer.to_python)",
        (("~", f"<method 'to_python' of '{PYDANTIC_CORE}.SchemaSerializer' objects>"),),
    ),
    Suspect(
        "Context rebuilt from the environment (pydantic-settings BaseSettings.__init__)",
        (("pydantic_settings/main.py", "__init__"),),
    ),
    Suspect(
        "callback managers configured (CallbackManager.configure, all runnables)",
        (("langchain_core/callbacks/manager.py", "configure"),),
    ),
    Suspect(
        "callback events (on_chain_start / on_chain_end, all runnables)",
        (
            ("langchain_core/callbacks/manager.py", "on_chain_start"),
            ("langchain_core/callbacks/manager.py", "on_chain_end"),
        ),
    ),
    Suspect(
        "checkpoint writes, in memory (InMemorySaver.put / put_writes)",
        (
            ("langgraph/checkpoint/memory/__init__.py", "put"),
            ("langgraph/checkpoint/memory/__init__.py", "put_writes"),
        ),
    ),
    Suspect(
        "checkpoint writes, SQLite (SqliteSaver.put / put_writes)",
        (
            ("langgraph/checkpoint/sqlite/__init__.py", "put"),
            ("langgraph/checkpoint/sqlite/__init__.py", "put_writes"),
        ),
    ),
    Suspect(
        "graph compiled per run (run.py _graph/_agraph -> build_graph)",
        (("graphs/app.py", "build_graph"),),
    ),
    Suspect("prompt rendering (render_prompt)", (("nodes/prompts/__init__.py", "render_prompt"),)),
    Suspect(
        "openai request body transform (openai._utils._transform.transform)",
        (("openai/_utils/_transform.py", "transform"),),
    ),
)
"""The suspects the issue names, and the others the profile showed."""

WAITS = ("acquire", "wait", "sleep", "select", "poll", "recv", "join", "SimpleQueue", "lock")
"""Words in the names of functions that wait rather than work (left out of the tops)."""


def short_path(path: str) -> str:
    """Return `path` relative to site-packages or the repository, for reading."""
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    try:
        return str(Path(path).resolve().relative_to(PROJECT))
    except ValueError:
        return Path(path).name if path.startswith("/") else path


def label(key: FunctionKey) -> str:
    """Return `file:function` for a profile entry."""
    path, _, name = key
    return name if path == "~" else f"{short_path(path)}:{name}"


@contextmanager
def every_thread_profiled() -> Iterator[list[cProfile.Profile]]:
    """Profile the calling thread and every thread started meanwhile; yield the profiles."""
    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()

    def start_profiler(*_: Any) -> None:
        profiler = cProfile.Profile()
        with lock:
            profiles.append(profiler)
        profiler.enable()  # replaces this hook for the new thread

    main = cProfile.Profile()
    profiles.append(main)
    threading.setprofile(start_profiler)
    main.enable()
    try:
        yield profiles
    finally:
        main.disable()
        threading.setprofile(None)  # type: ignore[arg-type]


def merged(profiles: list[cProfile.Profile]) -> dict[FunctionKey, tuple[int, float, float]]:
    """Merge per-thread profiles: function -> (calls, own seconds, cumulative seconds)."""
    stats = pstats.Stats(profiles[0])
    for profiler in profiles[1:]:
        try:
            stats.add(profiler)
        except TypeError:  # a thread that never ran Python code under the profiler
            continue
    table: dict[FunctionKey, tuple[int, float, float]] = {}
    for key, (_, calls, own, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        table[key] = (calls, own, cumulative)
    return table


def _matches(key: FunctionKey, suffix: str, name: str) -> bool:
    path, _, function = key
    return function == name and (path == "~" if suffix == "~" else path.endswith(suffix))


def suspect_costs(
    table: dict[FunctionKey, tuple[int, float, float]], wall: float, rounds: int
) -> list[dict[str, Any]]:
    """Return each suspect's calls, cumulative seconds, share of the wall time, ms per round."""
    rows = []
    for suspect in SUSPECTS:
        calls, seconds, found = 0, 0.0, []
        for suffix, name in suspect.functions:
            for key, (count, _, cumulative) in table.items():
                if _matches(key, suffix, name):
                    calls += count
                    seconds += cumulative
                    found.append(label(key))
        rows.append(
            {
                "suspect": suspect.label,
                "functions": sorted(set(found)),
                "calls": calls,
                "seconds": seconds,
                "share": seconds / wall,
                "ms_per_round": 1000 * seconds / rounds,
            }
        )
    return rows


def tops(
    table: dict[FunctionKey, tuple[int, float, float]], wall: float, count: int = 15
) -> dict[str, list[dict[str, Any]]]:
    """Return the top functions by own time, and critic-loop's own functions by cumulative."""

    def row(key: FunctionKey, seconds: float) -> dict[str, Any]:
        return {
            "function": label(key),
            "calls": table[key][0],
            "seconds": seconds,
            "share": seconds / wall,
        }

    working = [key for key in table if not any(word in key[2] for word in WAITS)]
    by_own = sorted(working, key=lambda key: table[key][1], reverse=True)[:count]
    own_code = [
        key
        for key in working
        if key[0].startswith(str(PROJECT))
        and "/benchmarks/" not in key[0]
        and "/.venv/" not in key[0]
    ]
    by_cumulative = sorted(own_code, key=lambda key: table[key][2], reverse=True)[:count]
    return {
        "top_self": [row(key, table[key][1]) for key in by_own],
        "top_own_code": [row(key, table[key][2]) for key in by_cumulative],
    }


def profile_loop(loop: Loop, rounds: int) -> dict[str, Any]:
    """Profile one loop of `rounds` rounds (after one warm-up loop); return its analysis."""
    loop.run(uuid.uuid4().hex[:12], 2)
    with every_thread_profiled() as profiles:
        start = time.perf_counter()
        made = loop.run(uuid.uuid4().hex[:12], rounds)
        wall = time.perf_counter() - start
    if made != rounds:
        raise RuntimeError(f"the profiled loop made {made} rounds, not {rounds}")
    table = merged(profiles)
    return {
        "rounds": rounds,
        "wall_seconds": wall,
        "threads_profiled": len(profiles),
        "suspects": suspect_costs(table, wall, rounds),
        **tops(table, wall),
    }


@contextmanager
def counting_thread_starts() -> Iterator[Counter[str]]:
    """Count threads started meanwhile, by the code that asked for them."""
    starts: Counter[str] = Counter()
    original: Callable[[threading.Thread], None] = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        starts[_requester(traceback.extract_stack(sys._getframe(1), limit=25))] += 1
        original(thread)

    threading.Thread.start = start  # type: ignore[method-assign]
    try:
        yield starts
    finally:
        threading.Thread.start = original  # type: ignore[method-assign]


def _requester(stack: traceback.StackSummary) -> str:
    """Name the innermost frame outside the standard library's threading machinery."""
    machinery = ("/threading.py", "/concurrent/futures/", "langchain_core/runnables/config.py")
    for frame in reversed(stack):
        if not any(part in frame.filename for part in machinery):
            return f"{short_path(frame.filename)}:{frame.name} (line {frame.lineno})"
    return "unknown"


def thread_starts(loop: Loop, rounds: int) -> Counter[str]:
    """Count the threads one loop of `rounds` rounds starts (after a warm-up loop)."""
    loop.run(uuid.uuid4().hex[:12], 2)
    with counting_thread_starts() as starts:
        loop.run(uuid.uuid4().hex[:12], rounds)
    return starts


def where_the_time_goes(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Profile critic-loop (and the plain loop), time the suspects alone, count thread starts."""
    rounds = settings.profile_rounds
    with ServerProcess(0.0) as server, tempfile.TemporaryDirectory(prefix="bench-prof-") as tmp:
        with sqlite_persistence(Path(tmp)) as persistence:
            memory = CriticLoopMemory(server.base_url)
            sqlite = CriticLoopSqlite(server.base_url, persistence)
            plain = PlainLoop(server.base_url)
            profiles = {
                "plain loop": profile_loop(plain, rounds),
                "critic-loop in memory": profile_loop(memory, rounds),
                "critic-loop SQLite": profile_loop(sqlite, rounds),
            }
            threads = {
                name: thread_starts(loop, settings.thread_rounds)
                for name, loop in (
                    ("plain loop", plain),
                    ("critic-loop in memory", memory),
                    ("critic-loop SQLite", sqlite),
                )
            }
        unprofiled = micro.suspects(server.base_url, settings.thread_rounds)
        split = decompose(server.base_url, settings.overhead_rounds, settings.overhead_repeats)
    ours = split["medians_ms_per_round"]["critic-loop in memory"]
    theirs = split["medians_ms_per_round"]["plain loop"]
    overhead_ms = ours["total"] - theirs["total"]
    details["profile"] = profiles
    details["thread_starts"] = {name: dict(counter) for name, counter in threads.items()}
    details["decomposition"] = split
    details["suspects_unprofiled"] = unprofiled
    return [
        *_decomposition_figures(ours, theirs, overhead_ms),
        *_suspect_figures(unprofiled, overhead_ms),
        *_thread_figures(threads, settings.thread_rounds),
        *_profile_figures(profiles, rounds),
    ]


def _decomposition_figures(
    ours: dict[str, float], theirs: dict[str, float], overhead_ms: float
) -> list[Figure]:
    baseline = f"overhead/round {overhead_ms:.2f} ms"
    return [
        Figure(
            "decomposition",
            key,
            100 * (value - theirs.get(key, 0.0)) / overhead_ms,
            "%",
            baseline,
            notes=[f"critic-loop {value:.2f} ms/round, plain loop {theirs.get(key, 0.0):.2f}"],
        )
        for key, value in ours.items()
        if key != "total"
    ]


def _profile_figures(profiles: dict[str, dict[str, Any]], rounds: int) -> list[Figure]:
    plain = {row["suspect"]: row for row in profiles["plain loop"]["suspects"]}
    figures = []
    for system in ("critic-loop in memory", "critic-loop SQLite"):
        for row in profiles[system]["suspects"]:
            if row["calls"] == 0 or row["share"] < 0.005:
                continue
            theirs = plain[row["suspect"]]
            figures.append(
                Figure(
                    f"profile ({system})",
                    row["suspect"],
                    100 * row["share"],
                    "%",
                    f"wall time of a {rounds}-round run",
                    notes=[
                        f"{row['calls']} calls, {row['ms_per_round']:.2f} ms/round profiled; "
                        f"plain loop {theirs['calls']} calls, {theirs['ms_per_round']:.2f}"
                    ],
                )
            )
    return figures


def _suspect_figures(rows: list[dict[str, Any]], overhead_ms: float) -> list[Figure]:
    return [
        Figure(
            "suspects, unprofiled",
            row["suspect"],
            100 * row["ms_per_round"] / overhead_ms,
            "%",
            f"overhead/round {overhead_ms:.2f} ms",
            notes=[
                f"{1000 * row['seconds_per_call']:.3f} ms/call x {row['calls_per_round']:.2f}"
                f"/round; {row['where']}"
            ],
        )
        for row in rows
    ]


def _thread_figures(threads: dict[str, Counter[str]], rounds: int) -> list[Figure]:
    plain_count = sum(threads["plain loop"].values())
    figures = []
    for system in ("critic-loop in memory", "critic-loop SQLite"):
        counter = threads[system]
        biggest = "; ".join(f"{where} x{count}" for where, count in counter.most_common(3))
        figures.append(
            Figure(
                "threads",
                f"threads started, {rounds}-round run: {system}",
                sum(counter.values()),
                "count",
                f"plain loop: {plain_count}",
                notes=[f"started by: {biggest}"] if biggest else [],
            )
        )
    return figures
