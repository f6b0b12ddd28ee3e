"""One writer per thread: a run holds a lease on its thread for as long as it writes.

Two processes resuming one thread would both run: each pays for its model calls, and the
history forks into two branches. So a run takes its thread's lease before it reads the
thread, and keeps it until it stops writing. A second run of the same thread, in another
process or in this one, is refused at once with `ThreadBusy` naming the thread and the
holder, or waits for the lease if asked to (`wait=True`).

A lease is the thread's key in the database's `KeyedLock` (`critic_loop.keyed_locks`): a
file lock beside SQLite, a session advisory lock in PostgreSQL (each released at once
when its holder's process dies, so a run killed with `kill -9` can be resumed at once),
or for a checkpointer the caller brought, a lock within this process only.

On LangGraph server the server's own run queue already serializes the runs of a thread
(a run created on a busy thread waits, or is rejected, per its `multitask_strategy`), so
the served graphs take no lease of their own.
"""

from __future__ import annotations

import math
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass
from functools import partial

from critic_loop.errors import ThreadBusy
from critic_loop.keyed_locks import KeyedLock


@dataclass(frozen=True)
class ThreadLeases:
    """Hands out the lease of a thread (see the module docstring)."""

    lock: KeyedLock

    def hold(self, thread_id: str, *, wait: bool = False) -> AbstractContextManager[None]:
        """Hold `thread_id`'s lease while inside.

        Raises:
            ThreadBusy: another run holds it and `wait` is false.
        """
        busy = partial(ThreadBusy, thread_id)
        return self.lock.hold(f"thread-{thread_id}", wait=math.inf if wait else 0, busy=busy)

    def ahold(self, thread_id: str, *, wait: bool = False) -> AbstractAsyncContextManager[None]:
        """Hold `thread_id`'s lease while inside, without blocking the event loop."""
        busy = partial(ThreadBusy, thread_id)
        return self.lock.ahold(f"thread-{thread_id}", wait=math.inf if wait else 0, busy=busy)


def local_leases(owner: object) -> ThreadLeases:
    """Return leases within this process only, for the threads of `owner` (a saver or store)."""
    return ThreadLeases(KeyedLock(f"threads of {type(owner).__name__} {id(owner)}"))
