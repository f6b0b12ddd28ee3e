"""Read runs back from the checkpointer (SQLite and PostgreSQL): values, settings, timelines."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from critic_loop.errors import UsageProblem
from critic_loop.state.history import append_only, highest_round, listed_checkpoints, timestamp
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Critique, Draft, WorkerFeedback
from critic_loop.thread_settings import StoredSettings, stored_settings

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

    from critic_loop.persistence import Persistence

STATE_FIELDS = frozenset(LoopState.model_fields)

HISTORY_FIELDS = ("drafts", "critiques", "feedback", "reviews", "memory_errors")
"""The channels of `LoopState` stored as each step's writes (`append_only`)."""

ROUNDS_FROM = {"drafts": "drafted", "critiques": "graded"}
"""The history fields a timeline's rounds are read from, and the `Step` field each sets."""


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
    run: str | None = None
    """The invocation that wrote it (its `run_id` metadata), if it says."""


@dataclass
class Thread:
    """A run as persistence keeps it: its latest values and, when read, its timeline."""

    thread_id: str
    values: dict[str, Any]
    updated_at: datetime | None
    started_at: datetime | None = None
    line: list[Step] = field(default_factory=list)
    """The checkpoints from the first to the latest, oldest first (when the history was read)."""
    pruned_at: str | None = None
    """When `critic-loop prune --keep-results` compacted it to its result (ISO), if it did."""
    settings: StoredSettings | None = None
    """The settings its latest run used, as its checkpoints keep them (if they do)."""

    @property
    def outcome(self) -> str | None:
        outcome = self.values.get("outcome")
        return str(outcome) if outcome is not None else None

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    @property
    def ended_at(self) -> datetime | None:
        return self.updated_at if self.finished else None

    @property
    def rounds(self) -> int:
        return highest_round(self.values.get("critiques"))

    @property
    def task(self) -> str:
        task = self.values.get("task")
        return task if isinstance(task, str) else ""

    @property
    def scope(self) -> str | None:
        sources = [self.values.get("memory_report"), *(self.values.get("recalled_rules") or [])]
        scopes = [str(s["scope"]) for s in sources if isinstance(s, Mapping) and s.get("scope")]
        return scopes[0] if scopes else None

    def records(self) -> tuple[list[Draft], list[Critique], list[WorkerFeedback]]:
        """Its drafts, critiques and feedback to the worker, as records."""
        return (
            [Draft.model_validate(item) for item in self.values.get("drafts") or []],
            [Critique.model_validate(item) for item in self.values.get("critiques") or []],
            [WorkerFeedback.model_validate(item) for item in self.values.get("feedback") or []],
        )


def state_values(channel_values: Mapping[str, Any]) -> dict[str, Any]:
    """Return the loop's state from a checkpoint's channel values (its input from `__start__`)."""
    values = {key: value for key, value in channel_values.items() if key in STATE_FIELDS}
    for key in HISTORY_FIELDS:
        if key in values:
            values[key] = append_only().from_checkpoint(values[key]).get()
    if isinstance(start := channel_values.get("__start__"), Mapping):
        values = {key: start[key] for key in ("task", "rubric") if key in start} | values
    return values


def _is_root(item: CheckpointTuple) -> bool:
    return not item.config["configurable"].get("checkpoint_ns")


def _thread_of(item: CheckpointTuple) -> str:
    return str(item.config["configurable"]["thread_id"])


def _step(item: CheckpointTuple) -> Step:
    values = state_values(item.checkpoint.get("channel_values") or {})
    parent = item.parent_config["configurable"].get("checkpoint_id") if item.parent_config else None
    return Step(
        checkpoint_id=str(item.checkpoint["id"]),
        parent_id=str(parent) if parent else None,
        at=timestamp(item.checkpoint),
        drafted=highest_round(values.get("drafts")),
        graded=highest_round(values.get("critiques")),
        run=str(run) if (run := (item.metadata or {}).get("run_id")) else None,
    )


def _written_rounds(item: CheckpointTuple) -> dict[str, int]:
    writes = item.pending_writes or []
    return {
        field: highest_round(
            [record for _, channel, value in writes if channel == key for record in value or []]
        )
        for key, field in ROUNDS_FROM.items()
    }


def _history_values(
    checkpointer: BaseCheckpointSaver[Any], item: CheckpointTuple
) -> dict[str, list[Any]]:
    # the history fields `item` does not store whole: its ancestors' writes, replayed
    # through the fields' own channel, are what `graph.get_state` shows
    checkpoint = item.checkpoint
    stored = checkpoint.get("channel_values") or {}
    versions = checkpoint.get("channel_versions") or {}
    missing = [key for key in HISTORY_FIELDS if key in versions and key not in stored]
    if not missing:
        return {}
    histories = checkpointer.get_delta_channel_history(config=item.config, channels=missing)
    values: dict[str, list[Any]] = {}
    for key, history in histories.items():
        channel = append_only().from_checkpoint(history.get("seed"))
        channel.replay_writes(history["writes"])
        values[key] = channel.get()
    return values


def _head(checkpointer: BaseCheckpointSaver[Any], item: CheckpointTuple) -> Thread | None:
    values = state_values(item.checkpoint.get("channel_values") or {})
    if "task" not in values or "rubric" not in values:  # a database may hold other graphs'
        return None
    values.update(_history_values(checkpointer, item))
    failed = any(channel == "__error__" for _, channel, _ in item.pending_writes or [])
    if values.get("outcome") is not None and failed and item.parent_config:  # a refused input:
        parent = checkpointer.get_tuple(item.parent_config)  # the run's own task is before it
        kept = state_values(parent.checkpoint["channel_values"]) if parent else {}
        values.update({key: kept[key] for key in ("task", "rubric") if key in kept})
    from critic_loop.persistence.retention import PRUNED_AT  # it loads the graph

    pruned_at = (item.metadata or {}).get(PRUNED_AT)
    return Thread(
        _thread_of(item),
        values,
        updated_at=timestamp(item.checkpoint),
        pruned_at=str(pruned_at) if pruned_at else None,
        settings=stored_settings(item.metadata),
    )


def _root_config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


def line_of(
    steps: Mapping[str, Step], head: str, written: Mapping[str, Mapping[str, int]]
) -> list[Step]:
    """Return the checkpoints from the first to `head`, oldest first, following parents.

    `written` gives, by checkpoint id, the rounds the steps taken from it drafted and
    graded: each step on the line holds the latest rounds written before it too.
    """
    line: list[Step] = []
    seen: set[str] = set()
    current: str | None = head
    while current is not None and current in steps and current not in seen:
        seen.add(current)
        line.append(steps[current])
        current = steps[current].parent_id
    line.reverse()
    drafted = graded = 0
    for index, step in enumerate(line):
        drafted, graded = max(drafted, step.drafted), max(graded, step.graded)
        line[index] = replace(step, drafted=drafted, graded=graded)
        made = written.get(step.checkpoint_id, {})
        drafted, graded = max(drafted, made.get("drafted", 0)), max(graded, made.get("graded", 0))
    return line


def _working_seconds(steps: Sequence[Step]) -> float | None:
    total = 0.0
    for before, after in zip(steps, steps[1:], strict=False):
        if before.at is None or after.at is None or after.at < before.at:
            return None
        if before.run == after.run:
            total += (after.at - before.at).total_seconds()
    return total


def round_seconds(line: Sequence[Step]) -> dict[int, float]:
    """Time each round of a timeline as docs/commands.md defines it (pauses left out)."""
    times: dict[int, float] = {}
    for number in range(1, max((step.graded for step in line), default=0) + 1):
        drafted = next((i for i, step in enumerate(line) if step.drafted >= number), None)
        graded = next((i for i, step in enumerate(line) if step.graded >= number), None)
        if drafted is None or drafted == 0 or graded is None:
            continue
        seconds = _working_seconds(line[drafted - 1 : graded + 1])
        if seconds is not None:
            times[number] = seconds
    return times


def _started(checkpointer: BaseCheckpointSaver[Any], thread_id: str) -> datetime | None:
    with listed_checkpoints(
        checkpointer, _root_config(thread_id), filter={"source": "input"}
    ) as listing:
        moments = [timestamp(item.checkpoint) for item in listing]
    return min((moment for moment in moments if moment is not None), default=None)


def recent_threads(checkpointer: BaseCheckpointSaver[Any], limit: int | None) -> list[Thread]:
    """Return the `limit` most recently active runs (all with None), newest first."""
    latest: dict[str, CheckpointTuple] = {}
    with listed_checkpoints(checkpointer, None) as listing:
        for item in listing:
            thread_id = _thread_of(item)
            if not _is_root(item) or thread_id in latest:
                continue
            if limit is not None and len(latest) >= limit:
                break
            latest[thread_id] = item
    heads = [_head(checkpointer, item) for item in latest.values()]
    threads = [thread for thread in heads if thread is not None]
    for thread in threads:
        thread.started_at = _started(checkpointer, thread.thread_id)
    return threads


def all_threads(checkpointer: BaseCheckpointSaver[Any], config: Any = None) -> list[Thread]:
    """Return every run (of `config`'s thread) with its timeline, most recently active first.

    One pass over the root checkpoints reads each thread's latest, its steps and their writes.
    """
    latest: dict[str, CheckpointTuple] = {}
    steps: dict[str, dict[str, Step]] = {}
    written: dict[str, dict[str, int]] = {}
    with listed_checkpoints(checkpointer, config) as listing:
        for item in listing:
            if not _is_root(item):
                continue
            thread_id = _thread_of(item)
            step = _step(item)
            steps.setdefault(thread_id, {})[step.checkpoint_id] = step
            written[step.checkpoint_id] = _written_rounds(item)
            latest.setdefault(thread_id, item)
    threads = []
    for thread_id, item in latest.items():
        thread = _head(checkpointer, item)
        if thread is None:
            continue
        known = steps[thread_id]
        head = max(known.values(), key=lambda step: step.checkpoint_id)
        thread.line = line_of(known, head.checkpoint_id, written)
        thread.started_at = min(
            (step.at for step in known.values() if step.at is not None), default=None
        )
        threads.append(thread)
    return threads


def read_thread(checkpointer: BaseCheckpointSaver[Any], thread_id: str, where: str) -> Thread:
    """Return one run with its timeline, reading its history once (else a UsageProblem)."""
    threads = all_threads(checkpointer, _root_config(thread_id))
    if not threads:
        raise UsageProblem(f"no run with thread id {thread_id!r} in {where}")
    return threads[0]


def latest_of_thread(database: str | None, thread_id: str) -> Thread | None:
    """Return a thread's latest values and settings (None: no such run, or no database yet)."""
    if _missing_file(database) is not None:
        return None
    with open_database(database) as persistence:
        checkpointer = persistence.checkpointer
        item = checkpointer.get_tuple(_root_config(thread_id))  # type: ignore[arg-type]
        return _head(checkpointer, item) if item is not None else None


def _missing_file(database: str | None) -> Path | None:
    """Return the SQLite file `database` names if there is none (a run would create it)."""
    from critic_loop.persistence import database_target, is_postgres

    target = database_target(database)
    path = None if is_postgres(target) else Path(target)
    return path if path is not None and not path.is_file() else None


@contextlib.contextmanager
def open_database(database: str | None) -> Iterator[Persistence]:
    """Open the runs and rules of `database` (or the default); unlike a run, never create one."""
    from critic_loop.persistence import database_target, is_postgres, open_persistence

    missing = _missing_file(database)
    if missing is not None:
        raise UsageProblem(
            f"no database at {missing}: nothing has run there yet "
            "(--db or CRITIC_LOOP_DATABASE_URL names another)"
        )
    target = database_target(database)
    with contextlib.ExitStack() as stack:
        try:
            persistence = stack.enter_context(open_persistence(target))
        except Exception as error:  # a server down, a file that is not a database, ...
            where = "the PostgreSQL database" if is_postgres(target) else target
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise UsageProblem(
                f"cannot open {where}: {type(error).__name__}{': ' + first if first else ''}"
            ) from error
        yield persistence
