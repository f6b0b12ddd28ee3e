"""Where runs and rules are kept: one SQLite file by default, PostgreSQL at scale."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.base import BaseStore, IndexConfig
from langgraph.store.sqlite import SqliteStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from critic_loop.keyed_locks import AdvisoryLocks, KeyedLock
from critic_loop.nodes.memory.lexical_embeddings import (
    EMBEDDINGS_VARIABLE,
    rule_index,
    sqlite_rule_index,
)
from critic_loop.nodes.memory.scope_locks import register_scope_lock
from critic_loop.nodes.models.redaction import redacted
from critic_loop.persistence import sqlite
from critic_loop.persistence.leases import ThreadLeases
from critic_loop.persistence.serde import StrictSerializer
from critic_loop.state.extras import missing_extra_message

DATA_DIR_VARIABLE = "CRITIC_LOOP_DATA_DIR"
DATABASE_URL_VARIABLE = "CRITIC_LOOP_DATABASE_URL"  # a `postgresql://` URL or a SQLite path
SETUP_KEY = "setup"  # held while the saver and store create and migrate their tables


@dataclass(frozen=True)
class Persistence:
    """An open checkpointer and store, and a description of where they keep data."""

    checkpointer: BaseCheckpointSaver[str]
    store: BaseStore
    location: str
    indexed: bool
    leases: ThreadLeases


def database_target(database: str | Path | None = None) -> str:
    """Return the database to use: the one given, else $CRITIC_LOOP_DATABASE_URL, else SQLite."""
    default = Path(os.environ.get(DATA_DIR_VARIABLE) or ".critic_loop") / "critic_loop.sqlite"
    return str(database or os.environ.get(DATABASE_URL_VARIABLE) or default)


def is_postgres(target: str) -> bool:
    """Tell whether `target` is a PostgreSQL URL."""
    return target.startswith(("postgresql://", "postgres://"))


def _postgres(target: str, asynchronous: bool) -> tuple[Any, Any, IndexConfig | None]:
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from langgraph.store.postgres import AsyncPostgresStore, PostgresStore
    except ImportError as error:
        said = "a postgresql:// database needs the PostgreSQL packages"
        raise RuntimeError(missing_extra_message(said, "postgres")) from error
    saver, store = (
        (AsyncPostgresSaver, AsyncPostgresStore) if asynchronous else (PostgresSaver, PostgresStore)
    )
    index: Any = rule_index() if os.environ.get(EMBEDDINGS_VARIABLE) else None  # a Postgres one
    return saver.from_conn_string(target), store.from_conn_string(target, index=index), index


def _opened(
    saver: BaseCheckpointSaver[str],
    store: BaseStore,
    target: str,
    lock: KeyedLock,
    index: IndexConfig | None,
) -> Persistence:
    saver.serde = StrictSerializer()
    register_scope_lock(store, lock)
    location = redacted(target) if is_postgres(target) else target
    return Persistence(saver, store, location, index is not None, ThreadLeases(lock))


@contextmanager
def open_persistence(database: str | Path | None = None) -> Iterator[Persistence]:
    """Open the checkpointer and store for synchronous code."""
    target = database_target(database)
    if is_postgres(target):
        opening_saver, opening_store, index = _postgres(target, asynchronous=False)
        with opening_saver as postgres_saver, opening_store as postgres_store:
            lock: KeyedLock = AdvisoryLocks(target)
            with lock.hold(SETUP_KEY):
                postgres_saver.setup()
                postgres_store.setup()
            yield _opened(postgres_saver, postgres_store, target, lock, index)
        return
    path = Path(target)
    lock = sqlite.file_locks(path)
    with lock.hold(SETUP_KEY):
        sqlite.prepare(path)
    saver_connection = sqlite.connect(path)
    store_connection = sqlite.connect(path, isolation_level=None)
    saver: SqliteSaver | None = None
    store: SqliteStore | None = None
    try:
        saver = SqliteSaver(saver_connection)
        index = sqlite_rule_index() if sqlite.can_index() else None
        store = SqliteStore(store_connection, index=index)
        with lock.hold(SETUP_KEY):  # one opener at a time migrates a fresh file
            with sqlite.applied_before(saver):
                saver.setup()
            store.setup()
            if index is not None:
                sqlite.reembed_stale_vectors(path, index)
        yield _opened(saver, store, str(path), lock, index)
    finally:  # a stopped run's thread may still be writing: wait for it, never close under it
        sqlite.close_when_idle(store_connection, store.lock if store else None)
        sqlite.close_when_idle(saver_connection, saver.lock if saver else None)


@asynccontextmanager
async def aopen_persistence(database: str | Path | None = None) -> AsyncIterator[Persistence]:
    """Open the async checkpointer and store, for async code such as `graph.ainvoke`."""
    target = database_target(database)
    if is_postgres(target):
        opening_saver, opening_store, index = _postgres(target, asynchronous=True)
        async with opening_saver as saver, opening_store as store:
            lock: KeyedLock = AdvisoryLocks(target)
            async with lock.ahold(SETUP_KEY):
                await saver.setup()
                await store.setup()
            yield _opened(saver, store, target, lock, index)
        return
    path = Path(target)
    lock = await asyncio.to_thread(sqlite.file_locks, path)
    async with lock.ahold(SETUP_KEY):
        await asyncio.to_thread(sqlite.prepare, path)
    saver_connection = aiosqlite.Connection(lambda: sqlite.connect(path), iter_chunk_size=64)
    store_connection = aiosqlite.Connection(
        lambda: sqlite.connect(path, isolation_level=None), iter_chunk_size=64
    )
    await saver_connection
    await store_connection
    try:
        saver = AsyncSqliteSaver(saver_connection)
        index = sqlite_rule_index() if sqlite.can_index() else None
        store = AsyncSqliteStore(store_connection, index=index)
        async with lock.ahold(SETUP_KEY):  # one opener at a time migrates a fresh file
            with sqlite.applied_before(saver):
                await saver.setup()
            await store.setup()
            if index is not None:
                await asyncio.to_thread(sqlite.reembed_stale_vectors, path, index)
        yield _opened(saver, store, str(path), lock, index)
    finally:
        await store_connection.close()
        await saver_connection.close()
