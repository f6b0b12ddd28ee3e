"""The embedded SQLite database: one SQLite build per file, WAL, and its lock files.

The checkpointer and the store share one file, so they must share one SQLite library:
two builds (the standard library's and pysqlite3's) writing one file in one process
corrupt it. Where `pysqlite3` can load extensions (needed for the store's vector index)
both use it; elsewhere both use the standard library. Connections use write-ahead
logging and wait for each other (a busy timeout) instead of failing, so many runs, in
one process or many, can share the file.

Imports inside functions are deliberate: pysqlite3 is tried, and may be missing (it is
installed on Linux x86-64 only).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

from langgraph.store.sqlite import SqliteStore

from critic_loop.keyed_locks import FileLocks

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_SECONDS = 60.0
"""How long a connection waits for another writer before giving up."""

PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL")
"""Set on every connection: readers never block the writer, commits stay durable in WAL."""


@functools.cache  # one library for the whole process: two writing one file corrupt it
def sqlite_module() -> ModuleType:
    """Return the SQLite library every connection uses: pysqlite3 if it can load extensions."""
    try:
        from pysqlite3 import dbapi2  # type: ignore[import-untyped]
    except ImportError:
        return sqlite3
    probe = dbapi2.connect(":memory:")
    try:
        probe.enable_load_extension(True)
    except AttributeError:
        return sqlite3
    finally:
        probe.close()
    module: ModuleType = dbapi2
    return module


def can_index() -> bool:
    """Tell whether the store can have a vector index (its library loads sqlite-vec)."""
    return sqlite_module() is not sqlite3


def connect(path: Path, **options: Any) -> Any:
    """Open a connection to `path` with the shared library, WAL and a busy timeout."""
    connection = sqlite_module().connect(
        path, check_same_thread=False, timeout=BUSY_TIMEOUT_SECONDS, **options
    )
    for pragma in PRAGMAS:
        connection.execute(pragma)
    return connection


def close_when_idle(connection: Any, lock: threading.Lock | None) -> None:
    """Close `connection` once no thread is inside it (`lock` guards its every use).

    A command stopped by Ctrl-C leaves its run's thread behind, perhaps in the middle of a
    checkpoint write; closing the connection under that write would crash the process.
    Waiting for the lock lets the write finish, and a later use raises ProgrammingError
    instead. A lock still held after the busy timeout leaves the connection to the exiting
    process rather than closing it under a write.
    """
    if lock is None:
        connection.close()
        return
    if not lock.acquire(timeout=BUSY_TIMEOUT_SECONDS + 5):
        logger.warning("a SQLite connection was still busy; left open for the process's exit")
        return
    try:
        connection.close()
    finally:
        lock.release()


def prepare(path: Path) -> None:
    """Create the database's folder, and switch the file to WAL once (it is persistent)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connect(path, isolation_level=None).close()


def reembed_stale_vectors(path: Path, index: Any) -> int:
    """Re-embed stored items whose vectors were made with another dimension; return how many.

    A store indexed before its embedding's dimensions changed holds vectors that its
    searches can no longer compare. Their items are written again, which embeds them anew.
    """
    connection = connect(path, isolation_level=None)
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        if "store_vectors" not in tables:
            return 0
        stale = connection.execute(
            "SELECT DISTINCT prefix, key FROM store_vectors WHERE length(embedding) != ?",
            (4 * int(index["dims"]),),
        ).fetchall()
        if not stale:
            return 0
        logger.warning("re-embedding %d stored item(s) made with other dimensions", len(stale))
        connection.execute(
            "DELETE FROM store_vectors WHERE length(embedding) != ?", (4 * int(index["dims"]),)
        )
        store = SqliteStore(connection, index=index)
        for prefix, key in stale:
            namespace = tuple(prefix.split("."))
            item = store.get(namespace, key)
            if item is not None:
                store.put(namespace, key, item.value)
        return len(stale)
    finally:
        connection.close()


def lock_directory(database: Path) -> Path:
    """Return the folder of the database's lock files, `<database>.locks/`, made if missing."""
    directory = database.resolve().with_name(database.name + ".locks")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def file_locks(database: Path) -> FileLocks:
    """Return the database's keyed lock: its setup, memory scopes and threads' leases."""
    return FileLocks(lock_directory(database))


def already_migrated(error: Exception) -> bool:
    """Tell whether a saver's setup failed only because its migration was applied before.

    LangGraph's SQLite savers add a column on setup and ignore "duplicate column name",
    but only as the standard library's `OperationalError`; pysqlite3 raises its own.
    The tables exist by then, so the saver is set up.
    """
    return "duplicate column name" in str(error)
