"""PostgreSQL at scale: the checkpointer and store, and an advisory lock per memory scope.

Imports inside functions are deliberate: psycopg and langgraph-checkpoint-postgres are
the optional `postgres` extra, imported only when a postgresql:// URL is opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from critic_loop.nodes.memory.scope_locks import process_lock_for
from critic_loop.state.extras import missing_extra_message

LOCK_NAMESPACE = "critic_loop:memory:"
"""Prefix of the advisory-lock keys (hashed with the scope)."""

SETUP_LOCK = "critic_loop:setup"
"""The advisory-lock key held while the checkpointer and store create their tables."""


POLL_SECONDS = 0.02
MAX_POLL_SECONDS = 0.5
"""How often a waiter tries an advisory lock again (backing off)."""

TRY_LOCK = "SELECT pg_try_advisory_lock(hashtext(%s))"


@contextlib.contextmanager
def setup_lock(url: str) -> Iterator[None]:
    """Hold the database's setup lock: one opener at a time creates and migrates the tables.

    LangGraph's savers and stores migrate on `setup()`; two at once on a fresh database
    collide. The lock is a session advisory lock, released when its connection closes
    (or its process dies). Waiters poll rather than block in `pg_advisory_lock`: a
    waiting statement would hold a transaction open, and the saver's `CREATE INDEX
    CONCURRENTLY` waits for every open transaction, the waiters' too (a deadlock).
    """
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        delay = POLL_SECONDS
        while not connection.execute(TRY_LOCK, (SETUP_LOCK,)).fetchone()[0]:  # type: ignore[index]
            time.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)
        yield


@contextlib.asynccontextmanager
async def asetup_lock(url: str) -> AsyncIterator[None]:
    """Hold the database's setup lock without blocking the event loop (see `setup_lock`)."""
    import psycopg

    connection = await psycopg.AsyncConnection.connect(url, autocommit=True)
    async with connection:
        delay = POLL_SECONDS
        while True:
            cursor = await connection.execute(TRY_LOCK, (SETUP_LOCK,))
            taken = await cursor.fetchone()
            if taken and taken[0]:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)
        yield


def postgres_classes() -> tuple[Any, Any, Any, Any]:
    """Return PostgresSaver, PostgresStore, AsyncPostgresSaver, AsyncPostgresStore."""
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from langgraph.store.postgres import AsyncPostgresStore, PostgresStore
    except ImportError as error:
        raise RuntimeError(
            missing_extra_message(
                "a postgresql:// database needs the PostgreSQL packages", "postgres"
            )
        ) from error
    return PostgresSaver, PostgresStore, AsyncPostgresSaver, AsyncPostgresStore


class AdvisoryScopeLock:
    """A memory scope held across processes with a PostgreSQL advisory lock.

    Advisory locks belong to a session and can be taken again by it, so each hold opens
    its own short connection; runs in this process also queue on an in-process lock so
    they do not each open one.
    """

    def __init__(self, url: str) -> None:
        """Lock through the server at `url`."""
        self.url = url
        self._in_process = process_lock_for(url)

    @contextlib.contextmanager
    def hold(self, scope: str) -> Iterator[None]:
        """Hold `scope` against every process using this database."""
        import psycopg

        with (
            self._in_process.hold(scope),
            psycopg.connect(self.url, autocommit=True) as connection,
        ):
            connection.execute("SELECT pg_advisory_lock(hashtext(%s))", (LOCK_NAMESPACE + scope,))
            yield  # the lock ends with the session

    @contextlib.asynccontextmanager
    async def ahold(self, scope: str) -> AsyncIterator[None]:
        """Hold `scope` without blocking the event loop."""
        import psycopg

        async with self._in_process.ahold(scope):
            connection = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            async with connection:
                await connection.execute(
                    "SELECT pg_advisory_lock(hashtext(%s))", (LOCK_NAMESPACE + scope,)
                )
                yield
