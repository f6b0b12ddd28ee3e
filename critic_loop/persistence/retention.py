"""Retention: bound a database over time by pruning finished runs older than a cutoff."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig

from critic_loop.errors import ThreadBusy
from critic_loop.graphs.app import loop_graph
from critic_loop.persistence import (
    database_target,
    is_postgres,
    open_persistence,
    sqlite,
)
from critic_loop.state.history import listed_checkpoints, timestamp

PRUNED_AT = "pruned_at"  # a compacted thread's last checkpoint's metadata: when (ISO)


@dataclass(frozen=True)
class PrunedRun:
    """A finished run that was (or, in a dry run, would be) pruned."""

    thread_id: str
    outcome: str
    ended_at: datetime
    rounds: int
    kept_result: bool


@dataclass
class PruneReport:
    """What `prune_runs` did: the runs pruned, and how many threads it left, by reason."""

    cutoff: datetime
    dry_run: bool
    pruned: list[PrunedRun] = field(default_factory=list)
    left: dict[str, int] = field(default_factory=dict)

    def _leave(self, reason: str) -> None:  # a thread left alone for `reason`
        self.left[reason] = self.left.get(reason, 0) + 1


def prune_runs(
    older_than: timedelta,
    *,
    database: str | Path | None = None,
    keep_results: bool = False,
    dry_run: bool = False,
    vacuum: bool = False,
    now: datetime | None = None,
) -> PruneReport:
    """Prune the runs of `database` whose last checkpoint is older than `now - older_than`.

    Args:
        database: A SQLite path or a `postgresql://` URL; default: the embedded database.
        keep_results: Compact each run to its last checkpoint instead of deleting it.
        vacuum: Shrink the SQLite file afterwards (`VACUUM`; PostgreSQL's autovacuum does it).
    """
    if older_than < timedelta(0):
        raise ValueError("older_than must not be negative")
    cutoff = (now or datetime.now(UTC)) - older_than
    report = PruneReport(cutoff=cutoff, dry_run=dry_run)
    target = database_target(database)
    with open_persistence(target) as persistence:
        graph = loop_graph(persistence.checkpointer, None)
        for thread_id, head in _heads(persistence.checkpointer).items():
            if keep_results and head.compacted:
                report._leave("compacted already")
                continue
            if head.ended_at is None or head.ended_at >= cutoff:
                report._leave("active since the cutoff")
                continue
            try:
                with persistence.leases.hold(thread_id):
                    run = _finished_run(graph, thread_id, head.ended_at, keep_results, report)
                    if run is None:
                        continue
                    if not dry_run and not _remove(
                        target, thread_id, head.checkpoint_id, keep_results
                    ):
                        report._leave("written to since it was judged")
                        continue
            except ThreadBusy:
                report._leave("held by a run")
                continue
            report.pruned.append(run)
    if vacuum and not dry_run and report.pruned and not is_postgres(target):
        with closing(sqlite.connect(Path(target), isolation_level=None)) as connection:
            connection.execute("VACUUM")
    return report


@dataclass(frozen=True)
class _Head:
    checkpoint_id: str
    ended_at: datetime | None
    compacted: bool


def _heads(checkpointer: Any) -> dict[str, _Head]:
    """Return each thread's last root checkpoint, in one pass over them (newest first)."""
    heads: dict[str, _Head] = {}
    with listed_checkpoints(checkpointer, None) as listing:
        for item in listing:
            configurable = item.config["configurable"]
            thread_id = str(configurable["thread_id"])
            if configurable.get("checkpoint_ns") or thread_id in heads:
                continue
            heads[thread_id] = _Head(
                str(configurable["checkpoint_id"]),
                timestamp(item.checkpoint),
                compacted=PRUNED_AT in (item.metadata or {}),
            )
    return heads


def _finished_run(
    graph: Any, thread_id: str, ended_at: datetime, keep_results: bool, report: PruneReport
) -> PrunedRun | None:
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    snapshot = graph.get_state(config)
    values = snapshot.values
    if "task" not in values or "rubric" not in values:
        report._leave("not a critic-loop run")
        return None
    if values.get("outcome") is None or snapshot.next:
        report._leave("unfinished")
        return None
    rounds = max((critique["round"] for critique in values.get("critiques") or []), default=0)
    return PrunedRun(thread_id, str(values["outcome"]), ended_at, rounds, keep_results)


LATEST = (  # %s placeholders: PostgreSQL's, and SQLite's once they are made `?`
    "SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = %s "
    "AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1"
)
OTHERS = "thread_id = %s AND NOT (checkpoint_ns = '' AND checkpoint_id = %s)"
KEEP_HEAD_BLOBS = (  # PostgreSQL: keep the blobs the last checkpoint names (its versions)
    "DELETE FROM checkpoint_blobs b WHERE b.thread_id = %s AND (b.checkpoint_ns <> '' "
    "OR b.version IS DISTINCT FROM (SELECT h.checkpoint -> 'channel_versions' ->> "
    "b.channel FROM checkpoints h WHERE h.thread_id = %s AND h.checkpoint_ns = '' "
    "AND h.checkpoint_id = %s))"
)


def _remove(target: str, thread_id: str, head: str, keep_result: bool) -> bool:
    """Delete (or compact) one thread if its last checkpoint is still `head`; tell whether."""
    postgres = is_postgres(target)
    writes = "checkpoint_writes" if postgres else "writes"
    with _transaction(target) as (db, sql):
        latest = db.execute(sql(LATEST + (" FOR UPDATE" if postgres else "")), (thread_id,))
        row = latest.fetchone()
        if row is None or row[0] != head:
            return False
        if not keep_result:
            tables = (writes, "checkpoint_blobs") if postgres else (writes,)
            for table in (*tables, "checkpoints"):
                db.execute(sql(f"DELETE FROM {table} WHERE thread_id = %s"), (thread_id,))
            return True
        for table in (writes, "checkpoints"):
            db.execute(sql(f"DELETE FROM {table} WHERE {OTHERS}"), (thread_id, head))
        if postgres:
            db.execute(KEEP_HEAD_BLOBS, (thread_id, thread_id, head))
        metadata = row[1] if isinstance(row[1], dict) else json.loads(row[1] or b"{}")
        metadata[PRUNED_AT] = datetime.now(UTC).isoformat(timespec="seconds")
        stored: Any = json.dumps(metadata).encode()  # SQLite's; PostgreSQL's is jsonb
        if postgres:
            from psycopg.types.json import Jsonb

            stored = Jsonb(metadata)
        db.execute(
            sql(
                "UPDATE checkpoints SET parent_checkpoint_id = NULL, metadata = %s "
                "WHERE thread_id = %s AND checkpoint_ns = '' AND checkpoint_id = %s"
            ),
            (stored, thread_id, head),
        )
        return True


@contextmanager
def _transaction(target: str) -> Iterator[tuple[Any, Callable[[str], str]]]:
    """Yield a connection in a transaction holding the write lock, and its SQL's spelling."""
    if is_postgres(target):
        import psycopg

        with psycopg.connect(target) as db, db.transaction():
            yield db, str
        return
    connection = sqlite.connect(Path(target), isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        with connection:  # commits, or rolls back on an error
            yield connection, lambda query: query.replace("%s", "?")
    finally:
        connection.close()
