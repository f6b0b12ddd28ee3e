"""The embedded SQLite database: one SQLite build per file, WAL, and a lock per memory scope.

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

import asyncio
import contextlib
import fcntl
import functools
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from langgraph.store.sqlite import SqliteStore

from critic_loop.nodes.memory.scope_locks import process_lock_for

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_SECONDS = 60.0
"""How long a connection waits for another writer before giving up."""

POLL_SECONDS = 0.005
MAX_POLL_SECONDS = 0.1
"""How often a file lock another run or process holds is tried again (backing off)."""

LOCK_WAIT_SECONDS = 300.0
"""How long a run waits for the setup lock or a memory scope's lock before it gives up
with an error naming the lock (each is held for a migration or a rule's write: moments)."""

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


class LockWaitExpired(TimeoutError):
    """A file lock stayed held by another run or process for longer than `LOCK_WAIT_SECONDS`."""

    def __init__(self, path: Path) -> None:
        """Name the lock file and what holds such locks."""
        super().__init__(
            f"waited {LOCK_WAIT_SECONDS:.0f} s for {path}: another run or process using the "
            "database holds it (a process that dies lets go at once); try again when it ends"
        )


def _try_flock(handle: Any) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def hold_file(path: Path) -> Iterator[None]:
    """Hold an exclusive `flock` on `path`, waiting for it (threads and processes alike).

    Each hold opens the file anew, so two holds in one process exclude each other too.
    The operating system releases the lock when its process dies.

    Raises:
        LockWaitExpired: the lock stayed held for `LOCK_WAIT_SECONDS`.
    """
    with path.open("a") as handle:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        delay = POLL_SECONDS
        while not _try_flock(handle):
            if time.monotonic() > deadline:
                raise LockWaitExpired(path)
            time.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.asynccontextmanager
async def ahold_file(path: Path) -> AsyncIterator[None]:
    """Hold an exclusive `flock` on `path` without blocking the event loop (it polls).

    Raises:
        LockWaitExpired: the lock stayed held for `LOCK_WAIT_SECONDS`.
    """
    with path.open("a") as handle:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        delay = POLL_SECONDS
        while not _try_flock(handle):
            if time.monotonic() > deadline:
                raise LockWaitExpired(path)
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def setup_lock(database: Path) -> contextlib.AbstractContextManager[None]:
    """Hold the database's setup lock: one opener at a time creates and migrates the file.

    LangGraph's savers and stores migrate on `setup()`, and two at once on a fresh file
    collide (`UNIQUE constraint failed: store_migrations.v`, `duplicate column name`).
    """
    return hold_file(lock_directory(database) / "setup.lock")


def asetup_lock(database: Path) -> contextlib.AbstractAsyncContextManager[None]:
    """Hold the database's setup lock without blocking the event loop (see `setup_lock`)."""
    return ahold_file(lock_directory(database) / "setup.lock")


def already_migrated(error: Exception) -> bool:
    """Tell whether a saver's setup failed only because its migration was applied before.

    LangGraph's SQLite savers add a column on setup and ignore "duplicate column name",
    but only as the standard library's `OperationalError`; pysqlite3 raises its own.
    The tables exist by then, so the saver is set up.
    """
    return "duplicate column name" in str(error)


class FileScopeLock:
    """A memory scope held across processes: `flock` on a file per scope beside the database.

    Threads and tasks of this process first queue on an in-process lock shared by every
    connection to the database; the one at the front then takes the file lock, which
    other processes also take. Async code polls for the file lock instead of parking a
    worker thread on it: a thread pool full of waiters could starve the holder (the
    store embeds rule texts in worker threads).
    """

    def __init__(self, database: Path) -> None:
        """Keep the lock files in `<database>.locks/`."""
        self.database = database
        self._in_process = process_lock_for(str(database.resolve()))

    def _path(self, scope: str) -> Path:
        return lock_directory(self.database) / f"{scope}.lock"

    @contextlib.contextmanager
    def hold(self, scope: str) -> Iterator[None]:
        """Hold `scope` against every thread and process using this database."""
        with self._in_process.hold(scope), hold_file(self._path(scope)):
            yield

    @contextlib.asynccontextmanager
    async def ahold(self, scope: str) -> AsyncIterator[None]:
        """Hold `scope` without blocking the event loop."""
        async with self._in_process.ahold(scope), ahold_file(self._path(scope)):
            yield
