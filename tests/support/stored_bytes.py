"""How many bytes a database holds: a SQLite file, or critic-loop's PostgreSQL tables.

`sqlite_bytes` folds the write-ahead log into the file first, so the figure is the
database's own size. `postgres_bytes` adds up the total size (rows, TOAST and indexes) of
the checkpointer's and the store's tables; `fresh_postgres` makes a new database for a
measurement and drops it afterwards, so nothing else is counted.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TABLE_PREFIXES = ("checkpoint", "store")
"""critic-loop's PostgreSQL tables: LangGraph's checkpointer's and store's (and migrations)."""


def sqlite_bytes(path: Path) -> int:
    """Return the size of the SQLite file at `path`, its write-ahead log folded in."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def postgres_bytes(url: str) -> int:
    """Return the total size of critic-loop's tables in the database at `url`."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind = 'r' AND n.nspname = 'public' AND ("
            + " OR ".join("c.relname LIKE %s" for _ in TABLE_PREFIXES)
            + ")",
            tuple(f"{prefix}%" for prefix in TABLE_PREFIXES),
        ).fetchone()
    return int(row[0]) if row else 0


@contextmanager
def fresh_postgres(url: str) -> Iterator[str]:
    """Create an empty database on the server of `url`; yield its URL; drop it after."""
    import psycopg

    name = f"critic_loop_bytes_{uuid.uuid4().hex[:12]}"
    base, _, _ = url.rpartition("/")
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
