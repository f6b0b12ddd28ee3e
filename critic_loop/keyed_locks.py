"""Exclusive locks on named keys, from sync and async code: one implementation per backend.

A hold takes the key in this process, then the backend's (`FileLocks`, `AdvisoryLocks`),
which lets go when its holder dies. Waiters poll rather than block: a waiting PostgreSQL
statement holds a transaction open, and `CREATE INDEX CONCURRENTLY` waits for those.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

Release = Callable[[], None]
Busy = Callable[[str], Exception]  # makes the error of a key held too long, given its holder
LOCK_WAIT_SECONDS = 300.0  # a setup or a memory write holds its key for moments
POLL_SECONDS = 0.005  # the first pause before a held key is tried again; each doubles

# the server notices a vanished holder within about a minute
KEEPALIVE_OPTIONS = (
    "-c tcp_keepalives_idle=30 -c tcp_keepalives_interval=10 -c tcp_keepalives_count=3"
)
APPLICATION_NAME = re.compile(r"^critic-loop pid (?P<pid>\d+) on (?P<host>.*)$")

HOLDER_QUERY = """
SELECT a.pid, a.application_name, a.client_addr::text, a.backend_start
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s AND l.objid = %s
  AND l.objsubid = 1
"""

FILE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")  # a key that names its file; others hash


class LockWaitExpired(TimeoutError):
    """A key stayed held by another run or process for longer than the hold would wait."""

    def __init__(self, waited: float, lock: str, holder: str) -> None:
        self.holder = holder
        super().__init__(
            f"waited {waited:.0f} s for {lock}, held by {holder} (a process that dies lets "
            "go at once); try again when it ends"
        )


def _holder_note() -> dict[str, Any]:
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "command": " ".join(sys.argv)[:300],
        "since": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def _describe_holder(note: dict[str, Any] | None) -> str:
    if not note:
        return "another run (just starting)"
    here = " (this process)" if note.get("pid") == os.getpid() else ""
    command = f", {note['command']}" if note.get("command") else ""
    return (
        f"process {note.get('pid', '?')} on {note.get('host', '?')}{here}"
        f"{command}, since {note.get('since', '?')}"
    )


def _pauses(wait: float, longest: float) -> Iterator[float]:
    deadline = time.monotonic() + wait
    pause = POLL_SECONDS
    while (left := deadline - time.monotonic()) > 0:
        yield min(pause, left)
        pause = min(pause * 2, longest)


def _let_go(taking: asyncio.Future[Release | None]) -> None:  # its waiter was cancelled
    if not taking.cancelled() and taking.exception() is None and (release := taking.result()):
        release()


class KeyedLock:
    """Exclusive holds on named keys within this process; the backends extend it."""

    spans_processes: ClassVar[bool] = False  # a backend's lock too (async holds: in a thread)
    longest_pause: ClassVar[float] = 0.1
    _held: ClassVar[dict[tuple[str, str], dict[str, Any]]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, space: str) -> None:
        self.space = space  # every lock of this process on the same space shares its keys

    def _describe(self, key: str) -> str:
        return f"the lock {key!r} of this process"

    def _take(self, key: str) -> Release | None:
        """Take `key` beyond this process: what releases it, or None if another holds it."""
        return lambda: None

    def _holder(self, key: str) -> str:  # beyond this process
        return _describe_holder(None)

    def _attempt(self, key: str) -> Release | None:
        with self._guard:
            if (self.space, key) in self._held:
                return None
            self._held[(self.space, key)] = _holder_note()
        taken: Release | None = None
        try:
            taken = self._take(key)
        finally:
            if taken is None:
                self._give_back(key)
        return None if taken is None else functools.partial(self._release, key, taken)

    def _release(self, key: str, backend: Release) -> None:
        try:
            backend()
        finally:
            self._give_back(key)

    def _give_back(self, key: str) -> None:
        with self._guard:
            self._held.pop((self.space, key), None)

    def _busy(self, key: str, wait: float, busy: Busy | None) -> Exception:
        with self._guard:
            note = self._held.get((self.space, key))
        holder = _describe_holder(note) if note is not None else self._holder(key)
        if busy is not None:
            return busy(holder)
        return LockWaitExpired(wait, self._describe(key), holder)

    @contextlib.contextmanager
    def hold(
        self, key: str, *, wait: float | None = None, busy: Busy | None = None
    ) -> Iterator[None]:
        """Hold `key`, waiting up to `wait` s (`LOCK_WAIT_SECONDS`), else raise `busy(holder)`."""
        wait = LOCK_WAIT_SECONDS if wait is None else wait
        pauses = _pauses(wait, self.longest_pause)
        while (release := self._attempt(key)) is None:
            if (pause := next(pauses, None)) is None:
                raise self._busy(key, wait, busy)
            time.sleep(pause)
        try:
            yield
        finally:
            release()

    async def _aattempt(self, key: str) -> Release | None:
        if not self.spans_processes:
            return self._attempt(key)
        taking = asyncio.ensure_future(asyncio.to_thread(self._attempt, key))
        try:
            return await asyncio.shield(taking)
        except asyncio.CancelledError:  # the attempt goes on in its thread: let go of its take
            taking.add_done_callback(_let_go)
            raise

    @contextlib.asynccontextmanager
    async def ahold(
        self, key: str, *, wait: float | None = None, busy: Busy | None = None
    ) -> AsyncIterator[None]:
        """Hold `key` while inside, without blocking the event loop (see `hold`)."""
        wait = LOCK_WAIT_SECONDS if wait is None else wait
        pauses = _pauses(wait, self.longest_pause)
        while (release := await self._aattempt(key)) is None:
            if (pause := next(pauses, None)) is None:
                raise await asyncio.to_thread(self._busy, key, wait, busy)
            await asyncio.sleep(pause)
        try:
            yield
        finally:
            if self.spans_processes:
                await asyncio.to_thread(release)
            else:
                release()


class FileLocks(KeyedLock):
    """Keys held as `flock`s on a file per key in a directory, with a note of the holder."""

    spans_processes = True

    def __init__(self, directory: Path) -> None:
        super().__init__(f"files in {directory.resolve()}")
        self.directory = directory

    def _path(self, key: str) -> Path:
        name = key if FILE_NAME.match(key) else _digest(key).hex()[:40]
        return self.directory / f"{name}.lock"

    def _describe(self, key: str) -> str:
        return str(self._path(key))

    def _take(self, key: str) -> Release | None:
        # a holder removes its file when it lets go: a lock on a file removed (or replaced)
        # since it was opened is not the key's, so it is tried again
        path = self._path(key)
        self.directory.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            with contextlib.suppress(FileNotFoundError):
                if os.fstat(fd).st_ino == os.stat(path).st_ino:
                    os.ftruncate(fd, 0)
                    os.write(fd, json.dumps(_holder_note()).encode())
                    return lambda: _release_file(path, fd)
            os.close(fd)

    def _holder(self, key: str) -> str:
        for _ in range(5):  # the holder writes its note just after it took the lock
            with contextlib.suppress(OSError, ValueError):
                text = self._path(key).read_text()
                if text:
                    return _describe_holder(json.loads(text))
            time.sleep(0.02)
        return _describe_holder(None)


def _release_file(path: Path, fd: int) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
    os.close(fd)  # closing lets go of the lock


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).digest()


def _advisory_key(key: str) -> int:
    return int.from_bytes(_digest("critic_loop:" + key)[:8], "big", signed=True)


class AdvisoryLocks(KeyedLock):
    """Keys held as PostgreSQL session advisory locks, each on a connection of its own."""

    spans_processes = True
    longest_pause = 0.5  # each attempt opens a connection

    def __init__(self, url: str) -> None:
        super().__init__(f"postgres {url}")
        self.url = url

    def _describe(self, key: str) -> str:
        return f"the PostgreSQL advisory lock of {key!r}"

    def _connect(self) -> Any:
        import psycopg

        name = f"critic-loop pid {os.getpid()} on {socket.gethostname()}"[:63]
        return psycopg.connect(
            self.url, autocommit=True, application_name=name, options=KEEPALIVE_OPTIONS
        )

    def _take(self, key: str) -> Release | None:
        connection, taken = self._connect(), False
        try:
            row = connection.execute("SELECT pg_try_advisory_lock(%s)", (_advisory_key(key),))
            taken = bool(row.fetchone()[0])
        finally:
            if not taken:
                connection.close()
        return connection.close if taken else None  # the lock ends with the session

    def _holder(self, key: str) -> str:
        unsigned = _advisory_key(key) & 0xFFFFFFFFFFFFFFFF
        with self._connect() as connection:
            row = connection.execute(HOLDER_QUERY, (unsigned >> 32, unsigned & 0xFFFFFFFF))
            found = row.fetchone()
        if found is None:
            return _describe_holder(None)
        session, name, address, started = found
        named = APPLICATION_NAME.match(name or "")
        who = f"process {named['pid']} on {named['host']}" if named else (name or "a client")
        if named and int(named["pid"]) == os.getpid():
            who += " (this process)"
        where = f" from {address}" if address else ""
        return f"{who}, PostgreSQL session {session}{where}, since {started:%Y-%m-%d %H:%M:%S}"
