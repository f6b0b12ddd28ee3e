"""One writer per thread: a run holds its thread's lease while it writes (docs/persistence.md)."""

from __future__ import annotations

import math
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass
from functools import partial

from critic_loop.errors import ThreadBusy
from critic_loop.keyed_locks import KeyedLock


@dataclass(frozen=True)
class ThreadLeases:
    """Hands out the lease of a thread."""

    lock: KeyedLock

    def hold(self, thread_id: str, *, wait: bool = False) -> AbstractContextManager[None]:
        """Hold `thread_id`'s lease while inside (`ThreadBusy` if held and not `wait`)."""
        busy = partial(ThreadBusy, thread_id)
        return self.lock.hold(f"thread-{thread_id}", wait=math.inf if wait else 0, busy=busy)

    def ahold(self, thread_id: str, *, wait: bool = False) -> AbstractAsyncContextManager[None]:
        """Hold `thread_id`'s lease while inside, without blocking the event loop."""
        busy = partial(ThreadBusy, thread_id)
        return self.lock.ahold(f"thread-{thread_id}", wait=math.inf if wait else 0, busy=busy)


def local_leases(owner: object) -> ThreadLeases:
    """Return leases within this process only, for the threads of `owner` (a saver or store)."""
    return ThreadLeases(KeyedLock(f"threads of {type(owner).__name__} {id(owner)}"))
