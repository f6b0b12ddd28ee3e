"""PostgreSQL at scale: the checkpointer and store, and an advisory lock per memory scope."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

from critic_loop.nodes.memory.scope_locks import process_lock_for

LOCK_NAMESPACE = "critic_loop:memory:"
"""Prefix of the advisory-lock keys (hashed with the scope)."""


def postgres_classes() -> tuple[Any, Any, Any, Any]:
    """Return PostgresSaver, PostgresStore, AsyncPostgresSaver, AsyncPostgresStore."""
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from langgraph.store.postgres import AsyncPostgresStore, PostgresStore
    except ImportError as error:
        raise RuntimeError(
            "a postgresql:// database needs the PostgreSQL extras: "
            "pip install 'critic-loop[postgres]'"
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
