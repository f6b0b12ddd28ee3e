"""One writer at a time per memory scope: usage counts and consolidation read, then write.

Recording how a run fared (`consulted += 1`) and consolidating rules (dedupe against the
scope, retire the weakest) both read the scope's rules and write them back. Two runs
doing that at once would lose one's update or store a duplicate, so each holds the
scope's key in a `critic_loop.keyed_locks.KeyedLock` for the read-modify-write.

The lock depends on where the store lives. `critic_loop.persistence` registers its
database's lock (files beside SQLite, advisory locks in PostgreSQL) for the stores it
opens. Any other store (an in-memory store, the LangGraph server's) gets the default
lock: this process's, unless `set_default_scope_lock` chose another
(`critic_loop.serving.graphs` does, so the server's containers lock one another out
through the server's PostgreSQL).
"""

from __future__ import annotations

import weakref
from contextlib import AbstractContextManager

from langgraph.store.base import BaseStore

from critic_loop.keyed_locks import KeyedLock

_in_process = KeyedLock("memory scopes")
_registered: weakref.WeakKeyDictionary[BaseStore, KeyedLock] = weakref.WeakKeyDictionary()
_default = _in_process


def register_scope_lock(store: BaseStore, lock: KeyedLock) -> None:
    """Make memory writes to `store` hold `lock` (for as long as the store exists)."""
    _registered[store] = lock


def set_default_scope_lock(lock: KeyedLock | None) -> None:
    """Make memory writes to stores with no registered lock hold `lock` (None: this process's)."""
    global _default
    _default = lock if lock is not None else _in_process


def scope_lock(store: BaseStore) -> KeyedLock:
    """Return the lock that serializes memory writes to `store`."""
    return _registered.get(store, _default)


def scope_key(scope: str) -> str:
    """Return the key a memory scope is held by."""
    return f"memory-{scope}"


def holding(store: BaseStore, scope: str) -> AbstractContextManager[None]:
    """Hold `scope` of `store` for a memory write's read-modify-write (blocking the thread)."""
    return scope_lock(store).hold(scope_key(scope))
