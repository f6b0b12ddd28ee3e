"""Bound how many sandboxed test runs one process holds at once.

Each test run may hold up to its processes x memory per process, plus its working
directory and /dev/shm (memory-backed); a server works on many runs at once. So that the
total fits the machine, at most `CRITIC_LOOP_MAX_CONCURRENT_TESTS` test runs go at once
in a process; the others wait for a slot (their timeout starts when they run). The
arithmetic is in docs/security.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Iterator

from critic_loop.state.operator_settings import operator_settings

WAIT_SECONDS = 0.05
"""How often a waiting test run looks for a free slot."""


class TestSlots:
    """A count of the test runs in progress, shared by threads and event loops alike."""

    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        """Start with no run in progress."""
        self.running = 0
        self._lock = threading.Lock()

    def take(self, limit: int) -> bool:
        """Take a slot if fewer than `limit` runs are in progress; say whether it did."""
        with self._lock:
            if self.running >= limit:
                return False
            self.running += 1
            return True

    def give_back(self) -> None:
        """Free a slot taken with `take`."""
        with self._lock:
            self.running -= 1

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold a slot while the block runs, waiting (blocking) for one first."""
        while not self.take(operator_settings().max_concurrent_tests):
            time.sleep(WAIT_SECONDS)
        try:
            yield
        finally:
            self.give_back()

    @contextlib.asynccontextmanager
    async def aheld(self) -> AsyncIterator[None]:
        """Hold a slot while the block runs, waiting (without blocking the loop) first."""
        while not self.take(operator_settings().max_concurrent_tests):
            await asyncio.sleep(WAIT_SECONDS)
        try:
            yield
        finally:
            self.give_back()


SLOTS = TestSlots()
"""The slots of this process."""
