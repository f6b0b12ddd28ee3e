"""One writer at a time per memory scope: usage counts and consolidation read, then write.

Recording how a run fared (`consulted += 1`) and consolidating rules (dedupe against the
scope, retire the weakest) both read the scope's rules and write them back. Two runs
doing that at once would lose one's update or store a duplicate, so each holds the
scope's lock for the read-modify-write.

The lock that serializes writers depends on where the store lives. `critic_loop.persistence`
registers one that spans processes for the stores it opens (a file lock beside a SQLite
database, an advisory lock in PostgreSQL). Any other store (an in-memory store, the
LangGraph server's) gets the default lock: one that spans the threads and tasks of this
process, unless `set_default_scope_lock` chose another (`critic_loop.serving.graphs` does,
so the server's containers lock one another out through the server's PostgreSQL).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    contextmanager,
)
from typing import Protocol

from langgraph.store.base import BaseStore


class ScopeLock(Protocol):
    """Holds a memory scope exclusively, from sync or async code."""

    def hold(self, scope: str) -> AbstractContextManager[None]:
        """Hold `scope` (blocking) for the duration of a `with` block."""
        ...

    def ahold(self, scope: str) -> AbstractAsyncContextManager[None]:
        """Hold `scope` (without blocking the event loop) for an `async with` block."""
        ...


class ProcessScopeLock:
    """A lock per scope that spans the threads and the asyncio tasks of this process."""

    def __init__(self) -> None:
        """Start with no scope held."""
        self._guard = threading.Lock()
        self._threads: dict[str, threading.Lock] = {}
        self._tasks: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Lock]
        ] = weakref.WeakKeyDictionary()

    def _thread_lock(self, scope: str) -> threading.Lock:
        with self._guard:
            return self._threads.setdefault(scope, threading.Lock())

    def _task_lock(self, scope: str) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._guard:
            return self._tasks.setdefault(loop, {}).setdefault(scope, asyncio.Lock())

    @contextmanager
    def hold(self, scope: str) -> Iterator[None]:
        """Hold `scope` against other threads of this process."""
        with self._thread_lock(scope):
            yield

    @asynccontextmanager
    async def ahold(self, scope: str) -> AsyncIterator[None]:
        """Hold `scope` against other tasks of this event loop."""
        async with self._task_lock(scope):
            yield


_in_process = ProcessScopeLock()
_shared: dict[str, ProcessScopeLock] = {}
_shared_guard = threading.Lock()


def process_lock_for(database: str) -> ProcessScopeLock:
    """Return the in-process scope lock every connection to `database` shares.

    Runs in one process queue here first, so at most one of them per scope waits for the
    database's own lock.
    """
    with _shared_guard:
        return _shared.setdefault(database, ProcessScopeLock())


_registered: weakref.WeakKeyDictionary[BaseStore, ScopeLock] = weakref.WeakKeyDictionary()


def register_scope_lock(store: BaseStore, lock: ScopeLock) -> None:
    """Make memory writes to `store` hold `lock` (for as long as the store exists)."""
    _registered[store] = lock


_default: ScopeLock = _in_process


def set_default_scope_lock(lock: ScopeLock | None) -> None:
    """Make memory writes to stores with no registered lock hold `lock` (None: this process's)."""
    global _default
    _default = lock if lock is not None else _in_process


def scope_lock(store: BaseStore) -> ScopeLock:
    """Return the lock that serializes memory writes to `store`."""
    return _registered.get(store, _default)


def holding(store: BaseStore, scope: str) -> AbstractContextManager[None]:
    """Hold `scope` of `store` for a memory write's read-modify-write (blocking the thread)."""
    return scope_lock(store).hold(scope)
