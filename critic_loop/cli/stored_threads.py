"""Read runs back from persistence: threads, their latest values, and when each step was taken.

Everything here reads the checkpointer through LangGraph's public saver API, so it works
the same on SQLite and PostgreSQL. A thread's values are the channel values of the
latest checkpoint of its root graph (the distillation subgraph's own checkpoints are
skipped): the same values `graph.get_state` shows, without building the graph.

- `recent_threads` lists the threads most recently active, newest first. It makes one
  pass over the checkpoints, newest first (`checkpointer.list(None)`), keeps the first
  checkpoint it meets of each thread (its latest) and stops once it has `limit` threads;
  then each thread's start is read from its one input checkpoint (a metadata filter the
  savers run in SQL), never from its whole history.
- `all_threads` makes one full pass and keeps, besides each thread's latest values, a
  small `Step` per checkpoint (id, parent, time, latest round drafted and graded) so
  each thread's timeline can be walked without reading a checkpoint twice.
- `read_thread` reads one thread's history once.

A timeline is the line of checkpoints from the thread's first to its latest, following
parents (a forked thread's other branches are left out). `round_seconds` times each round
on it: from the last checkpoint before the round's first draft to the first checkpoint
holding its critique, so a round's time covers the worker's and the critic's calls. It
is wall-clock time between checkpoints: a run stopped mid-round and resumed later counts
the pause.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from critic_loop.errors import UsageProblem

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

    from critic_loop.persistence import Persistence

STATE_FIELDS = frozenset(
    {
        "task",
        "rubric",
        "drafts",
        "critiques",
        "feedback",
        "recalled_rules",
        "outcome",
        "outcome_reason",
        "final",
        "final_round",
        "open_items",
        "memory_report",
        "memory_errors",
        "reviews",
        "thread_id",
    }
)
"""The channels of `LoopState` (a unit test keeps this list equal to its fields)."""


@dataclass(frozen=True)
class Step:
    """One checkpoint of a thread's root graph, reduced to what its timeline needs."""

    checkpoint_id: str
    parent_id: str | None
    at: datetime | None
    drafted: int
    """The latest round with a draft at this checkpoint (0: none yet)."""
    graded: int
    """The latest round with a critique at this checkpoint (0: none yet)."""


@dataclass
class Thread:
    """A run as persistence keeps it: its latest values and, when read, its timeline."""

    thread_id: str
    values: dict[str, Any]
    updated_at: datetime | None
    started_at: datetime | None = None
    line: list[Step] = field(default_factory=list)
    """The checkpoints from the first to the latest, oldest first (when the history was read)."""

    @property
    def outcome(self) -> str | None:
        """How the run ended; None while it is unfinished."""
        outcome = self.values.get("outcome")
        return str(outcome) if outcome is not None else None

    @property
    def finished(self) -> bool:
        """Whether the run declared an outcome."""
        return self.outcome is not None

    @property
    def ended_at(self) -> datetime | None:
        """When its latest step was taken, for a finished run; None for an unfinished one."""
        return self.updated_at if self.finished else None

    @property
    def rounds(self) -> int:
        """The number of graded rounds."""
        return latest_round(self.values.get("critiques"))

    @property
    def task(self) -> str:
        """The task, as given."""
        task = self.values.get("task")
        return task if isinstance(task, str) else ""

    @property
    def scope(self) -> str | None:
        """The memory scope the run recalled from or distilled into, if it says."""
        report = self.values.get("memory_report")
        if isinstance(report, Mapping) and report.get("scope"):
            return str(report["scope"])
        for rule in self.values.get("recalled_rules") or []:
            if isinstance(rule, Mapping) and rule.get("scope"):
                return str(rule["scope"])
        return None

    def round_seconds(self) -> dict[int, float]:
        """Time each round on the timeline (see the module docstring); untimed ones left out."""
        return round_seconds(self.line)


def latest_round(records: Any) -> int:
    """Return the highest `round` among stored records (drafts or critiques); 0 if none."""
    rounds = [r.get("round") for r in records or [] if isinstance(r, Mapping)]
    return max((r for r in rounds if isinstance(r, int)), default=0)


def state_values(channel_values: Mapping[str, Any]) -> dict[str, Any]:
    """Return the loop's state from a checkpoint's channel values.

    A thread stopped before its first step holds its input only in `__start__`.
    """
    values = {key: value for key, value in channel_values.items() if key in STATE_FIELDS}
    start = channel_values.get("__start__")
    if isinstance(start, Mapping):
        for key in ("task", "rubric"):
            if key not in values and key in start:
                values[key] = start[key]
    return values


def is_loop_run(values: Mapping[str, Any]) -> bool:
    """Tell whether a thread's values are a critic-loop run (a database may hold others)."""
    return "task" in values and "rubric" in values


def timestamp(checkpoint: Mapping[str, Any]) -> datetime | None:
    """Return when a checkpoint was taken (its `ts`), in UTC; None if it does not say."""
    try:
        moment = datetime.fromisoformat(str(checkpoint["ts"]))
    except (KeyError, ValueError):
        return None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _is_root(item: CheckpointTuple) -> bool:
    return not item.config["configurable"].get("checkpoint_ns")


def _thread_of(item: CheckpointTuple) -> str:
    return str(item.config["configurable"]["thread_id"])


def _step(item: CheckpointTuple) -> Step:
    values = item.checkpoint.get("channel_values") or {}
    parent = item.parent_config["configurable"].get("checkpoint_id") if item.parent_config else None
    return Step(
        checkpoint_id=str(item.checkpoint["id"]),
        parent_id=str(parent) if parent else None,
        at=timestamp(item.checkpoint),
        drafted=latest_round(values.get("drafts")),
        graded=latest_round(values.get("critiques")),
    )


def _head(item: CheckpointTuple) -> Thread | None:
    values = state_values(item.checkpoint.get("channel_values") or {})
    if not is_loop_run(values):
        return None
    return Thread(_thread_of(item), values, updated_at=timestamp(item.checkpoint))


def root_config(thread_id: str) -> dict[str, Any]:
    """Return the config naming the root graph of `thread_id`."""
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


@contextlib.contextmanager
def _listing(
    checkpointer: BaseCheckpointSaver[Any], config: Any, **options: Any
) -> Iterator[Iterator[CheckpointTuple]]:
    """Iterate `checkpointer.list(...)` and close it when done, even after a `break`.

    The SQLite saver holds its connection's lock while a listing is open: it must be
    closed before the saver is asked anything else.
    """
    listing = checkpointer.list(config, **options)
    try:
        yield listing
    finally:
        close = getattr(listing, "close", None)
        if close is not None:
            close()


def line_of(steps: Mapping[str, Step], head: str) -> list[Step]:
    """Return the checkpoints from the first to `head`, oldest first, following parents."""
    line: list[Step] = []
    seen: set[str] = set()
    current: str | None = head
    while current is not None and current in steps and current not in seen:
        seen.add(current)
        line.append(steps[current])
        current = steps[current].parent_id
    return line[::-1]


def round_seconds(line: Sequence[Step]) -> dict[int, float]:
    """Time each round of a timeline (see the module docstring)."""
    times: dict[int, float] = {}
    for number in range(1, max((step.graded for step in line), default=0) + 1):
        drafted = next((i for i, step in enumerate(line) if step.drafted >= number), None)
        graded = next((step for step in line if step.graded >= number), None)
        if drafted is None or drafted == 0 or graded is None:
            continue
        start, end = line[drafted - 1].at, graded.at
        if start is not None and end is not None and end >= start:
            times[number] = (end - start).total_seconds()
    return times


def _started(checkpointer: BaseCheckpointSaver[Any], thread_id: str) -> datetime | None:
    """Return when the thread's run was submitted: the time of its input checkpoint."""
    with _listing(checkpointer, root_config(thread_id), filter={"source": "input"}) as listing:
        moments = [timestamp(item.checkpoint) for item in listing]
    return min((moment for moment in moments if moment is not None), default=None)


def recent_threads(checkpointer: BaseCheckpointSaver[Any], limit: int | None) -> list[Thread]:
    """Return the `limit` most recently active runs (all with None), newest first."""
    heads: dict[str, Thread] = {}
    seen: set[str] = set()
    with _listing(checkpointer, None) as listing:
        for item in listing:
            thread_id = _thread_of(item)
            if not _is_root(item) or thread_id in seen:
                continue
            if limit is not None and len(heads) >= limit:
                break
            seen.add(thread_id)
            head = _head(item)
            if head is not None:
                heads[thread_id] = head
    for thread in heads.values():
        thread.started_at = _started(checkpointer, thread.thread_id)
    return list(heads.values())


def _threads_with_lines(items: Iterable[CheckpointTuple]) -> list[Thread]:
    heads: dict[str, Thread | None] = {}
    steps: dict[str, dict[str, Step]] = {}
    for item in items:
        if not _is_root(item):
            continue
        thread_id = _thread_of(item)
        step = _step(item)
        steps.setdefault(thread_id, {})[step.checkpoint_id] = step
        if thread_id not in heads:
            heads[thread_id] = _head(item)
    threads = []
    for thread_id, thread in heads.items():
        if thread is None:
            continue
        known = steps[thread_id]
        head = max(known.values(), key=lambda step: step.checkpoint_id)
        thread.line = line_of(known, head.checkpoint_id)
        thread.started_at = min(
            (step.at for step in known.values() if step.at is not None), default=None
        )
        threads.append(thread)
    return threads


def all_threads(checkpointer: BaseCheckpointSaver[Any]) -> list[Thread]:
    """Return every run with its timeline, most recently active first, in one pass."""
    with _listing(checkpointer, None) as listing:
        return _threads_with_lines(listing)


def read_thread(checkpointer: BaseCheckpointSaver[Any], thread_id: str, where: str) -> Thread:
    """Return one run with its timeline, reading its history once.

    Raises:
        UsageProblem: `where` holds no such thread, or the thread is not a critic-loop run.
    """
    with _listing(checkpointer, root_config(thread_id)) as listing:
        threads = _threads_with_lines(listing)
    if not threads:
        raise UsageProblem(f"no run with thread id {thread_id!r} in {where}")
    return threads[0]


def _sqlite_file(target: str) -> Path | None:
    from critic_loop.persistence import is_postgres

    return None if is_postgres(target) else Path(target)


@contextlib.contextmanager
def open_database(database: str | None) -> Iterator[Persistence]:
    """Open the runs and rules of `database` (or the default) for reading and managing.

    Unlike a run, it never creates a database: a SQLite file that does not exist is a
    usage problem, as is one that cannot be opened.

    Raises:
        UsageProblem: there is no such database, or it cannot be opened.
    """
    from critic_loop.persistence import database_target, open_persistence

    target = database_target(database)
    path = _sqlite_file(target)
    if path is not None and not path.is_file():
        raise UsageProblem(
            f"no database at {path}: nothing has run there yet "
            "(--db or CRITIC_LOOP_DATABASE_URL names another)"
        )
    with contextlib.ExitStack() as stack:
        try:
            persistence = stack.enter_context(open_persistence(target))
        except Exception as error:  # a server down, a file that is not a database, ...
            where = str(path) if path is not None else "the PostgreSQL database"
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise UsageProblem(
                f"cannot open {where}: {type(error).__name__}{': ' + first if first else ''}"
            ) from error
        yield persistence
