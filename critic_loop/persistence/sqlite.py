"""The embedded SQLite database: one SQLite build per process, WAL, and its lock files."""

from __future__ import annotations

import contextlib
import functools
import logging
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from langgraph.store.sqlite import SqliteStore

from critic_loop.keyed_locks import FileLocks

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_SECONDS = 60.0  # how long a connection waits for another writer
PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL")


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
    """Close `connection` once no thread is inside it (`lock` guards its every use)."""
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
    """Re-embed stored items whose vectors were made with another dimension; return how many."""
    with contextlib.closing(connect(path, isolation_level=None)) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        if "store_vectors" not in tables:
            return 0
        width = 4 * int(index["dims"])  # bytes of one float32 vector of the index
        stale = connection.execute(
            "SELECT DISTINCT prefix, key FROM store_vectors WHERE length(embedding) != ?", (width,)
        ).fetchall()
        if not stale:
            return 0
        logger.warning("re-embedding %d stored item(s) made with other dimensions", len(stale))
        connection.execute("DELETE FROM store_vectors WHERE length(embedding) != ?", (width,))
        store = SqliteStore(connection, index=index)
        for prefix, key in stale:
            namespace = tuple(prefix.split("."))
            item = store.get(namespace, key)
            if item is not None:
                store.put(namespace, key, item.value)
        return len(stale)


def lock_directory(database: Path) -> Path:
    """Return the folder of the database's lock files, `<database>.locks/`, made if missing."""
    directory = database.resolve().with_name(database.name + ".locks")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def file_locks(database: Path) -> FileLocks:
    """Return the database's keyed lock: its setup, memory scopes and threads' leases."""
    return FileLocks(lock_directory(database))


@contextlib.contextmanager
def applied_before(saver: Any) -> Iterator[None]:
    """Treat a repeated migration as applied: LangGraph ignores one only as the stdlib's error."""
    try:
        yield
    except Exception as error:
        if "duplicate column name" not in str(error):
            raise
        saver.is_setup = True
