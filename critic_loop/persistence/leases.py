"""One writer per thread: a run holds a lease on its thread for as long as it writes.

Two processes resuming one thread would both run: each pays for its model calls, and the
history forks into two branches. So a run takes its thread's lease before it reads the
thread, and keeps it until it stops writing. A second run of the same thread, in another
process or in this one, is refused at once with `ThreadBusy` naming the thread and the
holder, or waits for the lease if asked to (`wait=True`).

- SQLite: an exclusive `flock` on a file per thread in `<database>.locks/`, holding a
  note of who holds it. The operating system releases it when the holder's process dies,
  so a run killed with `kill -9` can be resumed at once.
- PostgreSQL: a session advisory lock on a connection held for the run. The server
  releases it when the connection closes: at once when the holder's process dies, and
  within about a minute (TCP keepalives) when its host vanishes from the network.
- A checkpointer the caller brought (no database critic-loop opened): a lease within this
  process only.

On LangGraph server the server's own run queue already serializes the runs of a thread
(a run created on a busy thread waits, or is rejected, per its `multitask_strategy`), so
the served graphs take no lease of their own.

Imports inside functions are deliberate: psycopg is the optional `postgres` extra,
imported only for PostgreSQL leases.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Protocol

from critic_loop.errors import ThreadBusy

POLL_SECONDS = 0.05
MAX_POLL_SECONDS = 0.5
"""How often a waiting run tries the lease again (backing off)."""

KEEPALIVE_OPTIONS = (
    "-c tcp_keepalives_idle=30 -c tcp_keepalives_interval=10 -c tcp_keepalives_count=3"
)
"""Make the PostgreSQL server notice a vanished holder within about a minute."""


class ThreadLeases(Protocol):
    """Hands out the lease of a thread (see the module docstring)."""

    def hold(
        self, thread_id: str, *, wait: bool = False
    ) -> contextlib.AbstractContextManager[None]:
        """Hold `thread_id`'s lease while inside.

        Raises:
            ThreadBusy: another run holds it and `wait` is false.
        """
        ...

    def ahold(
        self, thread_id: str, *, wait: bool = False
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold `thread_id`'s lease while inside, without blocking the event loop."""
        ...


def holder_note() -> dict[str, Any]:
    """Describe this process as a lease's holder: pid, host, command and start time."""
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "command": " ".join(sys.argv)[:300],
        "since": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def describe_holder(note: dict[str, Any] | None) -> str:
    """Say who holds a lease, from its holder's note."""
    if not note:
        return "another run (just starting)"
    here = " (this process)" if note.get("pid") == os.getpid() else ""
    command = f", {note['command']}" if note.get("command") else ""
    return (
        f"process {note.get('pid', '?')} on {note.get('host', '?')}{here}"
        f"{command}, since {note.get('since', '?')}"
    )


def _digest(thread_id: str) -> bytes:
    return hashlib.sha256(thread_id.encode("utf-8", errors="surrogatepass")).digest()


class FileThreadLeases:
    """Leases as `flock`s on a file per thread in `<database>.locks/` (SQLite)."""

    def __init__(self, directory: Path) -> None:
        """Keep the lease files in `directory`."""
        self.directory = directory

    def _path(self, thread_id: str) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        return self.directory / f"thread-{_digest(thread_id).hex()[:40]}.lease"

    def _try(self, path: Path) -> int | None:
        """Take the lease file at `path`: its open descriptor, or None if another holds it.

        A holder removes its file when it lets go; a lock taken on a file that has been
        removed (or replaced) since it was opened is not the lease, so it is tried again.
        """
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            try:
                current = os.stat(path)
            except FileNotFoundError:
                os.close(fd)
                continue
            if os.fstat(fd).st_ino != current.st_ino:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(holder_note()).encode())
            return fd

    def _holder(self, path: Path) -> str:
        for _ in range(5):  # the holder writes its note just after it took the lock
            try:
                text = path.read_text()
            except OSError:
                text = ""
            if text:
                try:
                    return describe_holder(json.loads(text))
                except ValueError:
                    pass
            time.sleep(0.02)
        return describe_holder(None)

    def _release(self, path: Path, fd: int) -> None:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)  # closing lets go of the lock

    @contextlib.contextmanager
    def hold(self, thread_id: str, *, wait: bool = False) -> Iterator[None]:
        """Hold the lease while inside (see `ThreadLeases.hold`)."""
        path = self._path(thread_id)
        delay = POLL_SECONDS
        while (fd := self._try(path)) is None:
            if not wait:
                raise ThreadBusy(thread_id, self._holder(path))
            time.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)
        try:
            yield
        finally:
            self._release(path, fd)

    @contextlib.asynccontextmanager
    async def ahold(self, thread_id: str, *, wait: bool = False) -> AsyncIterator[None]:
        """Hold the lease while inside, without blocking the event loop."""
        path = self._path(thread_id)
        delay = POLL_SECONDS
        while (fd := self._try(path)) is None:
            if not wait:
                raise ThreadBusy(thread_id, await asyncio.to_thread(self._holder, path))
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)
        try:
            yield
        finally:
            self._release(path, fd)


def advisory_key(thread_id: str) -> int:
    """Return the 64-bit advisory-lock key of a thread's lease."""
    return int.from_bytes(_digest("critic_loop:thread:" + thread_id)[:8], "big", signed=True)


HOLDER_QUERY = """
SELECT a.pid, a.application_name, a.client_addr::text, a.backend_start
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s AND l.objid = %s
  AND l.objsubid = 1
"""


def _key_parts(key: int) -> tuple[int, int]:
    unsigned = key & 0xFFFFFFFFFFFFFFFF
    return unsigned >> 32, unsigned & 0xFFFFFFFF


APPLICATION_NAME = re.compile(r"^critic-loop pid (?P<pid>\d+) on (?P<host>.*)$")
"""How a lease's connection names its process to the server (`application_name`)."""


def _application_name() -> str:
    return f"critic-loop pid {os.getpid()} on {socket.gethostname()}"[:63]


def _described(row: Any) -> str:
    if row is None:
        return describe_holder(None)
    session, name, address, started = row
    found = APPLICATION_NAME.match(name or "")
    who = f"process {found['pid']} on {found['host']}" if found else (name or "a client")
    if found and int(found["pid"]) == os.getpid():
        who += " (this process)"
    where = f" from {address}" if address else ""
    return f"{who}, PostgreSQL session {session}{where}, since {started:%Y-%m-%d %H:%M:%S}"


class AdvisoryThreadLeases:
    """Leases as PostgreSQL session advisory locks, one connection per lease held."""

    def __init__(self, url: str) -> None:
        """Take leases on the server at `url`."""
        self.url = url

    def _connect(self) -> Any:
        import psycopg

        return psycopg.connect(
            self.url,
            autocommit=True,
            application_name=_application_name(),
            options=KEEPALIVE_OPTIONS,
        )

    @contextlib.contextmanager
    def hold(self, thread_id: str, *, wait: bool = False) -> Iterator[None]:
        """Hold the lease while inside (see `ThreadLeases.hold`)."""
        key = advisory_key(thread_id)
        with self._connect() as connection:
            delay = POLL_SECONDS
            while True:  # polled: a waiting statement would hold a transaction open
                taken = connection.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                if taken and taken[0]:
                    break
                if not wait:
                    row = connection.execute(HOLDER_QUERY, _key_parts(key)).fetchone()
                    raise ThreadBusy(thread_id, _described(row))
                time.sleep(delay)
                delay = min(delay * 2, MAX_POLL_SECONDS)
            yield  # the lock ends with the connection

    @contextlib.asynccontextmanager
    async def ahold(self, thread_id: str, *, wait: bool = False) -> AsyncIterator[None]:
        """Hold the lease while inside, without blocking the event loop."""
        import psycopg

        key = advisory_key(thread_id)
        connection = await psycopg.AsyncConnection.connect(
            self.url,
            autocommit=True,
            application_name=_application_name(),
            options=KEEPALIVE_OPTIONS,
        )
        async with connection:
            delay = POLL_SECONDS
            while True:
                cursor = await connection.execute("SELECT pg_try_advisory_lock(%s)", (key,))
                taken = await cursor.fetchone()
                if taken and taken[0]:
                    break
                if not wait:
                    cursor = await connection.execute(HOLDER_QUERY, _key_parts(key))
                    raise ThreadBusy(thread_id, _described(await cursor.fetchone()))
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_POLL_SECONDS)
            yield


class LocalThreadLeases:
    """Leases within this process only, for a checkpointer critic-loop did not open."""

    _held: dict[tuple[int, str], dict[str, Any]] = {}
    _lock = threading.Lock()

    def __init__(self, owner: object) -> None:
        """Lease the threads of `owner` (a checkpointer)."""
        self.owner = id(owner)

    def _try(self, thread_id: str) -> bool:
        with self._lock:
            if (self.owner, thread_id) in self._held:
                return False
            self._held[(self.owner, thread_id)] = holder_note()
            return True

    def _holder(self, thread_id: str) -> str:
        with self._lock:
            return describe_holder(self._held.get((self.owner, thread_id)))

    def _release(self, thread_id: str) -> None:
        with self._lock:
            self._held.pop((self.owner, thread_id), None)

    @contextlib.contextmanager
    def hold(self, thread_id: str, *, wait: bool = False) -> Iterator[None]:
        """Hold the lease while inside (see `ThreadLeases.hold`)."""
        delay = POLL_SECONDS
        while not self._try(thread_id):
            if not wait:
                raise ThreadBusy(thread_id, self._holder(thread_id))
            time.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)
        try:
            yield
        finally:
            self._release(thread_id)

    @contextlib.asynccontextmanager
    async def ahold(self, thread_id: str, *, wait: bool = False) -> AsyncIterator[None]:
        """Hold the lease while inside, without blocking the event loop."""
        delay = POLL_SECONDS
        while not self._try(thread_id):
            if not wait:
                raise ThreadBusy(thread_id, self._holder(thread_id))
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)
        try:
            yield
        finally:
            self._release(thread_id)
