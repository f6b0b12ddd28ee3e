"""One writer at a time per memory scope: usage counts and consolidation read, then write."""

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
