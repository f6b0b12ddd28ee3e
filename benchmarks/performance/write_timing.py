"""The time a thread's checkpoint writes take, round by round.

`WriteTimer` wraps a (synchronous) saver's `put` and `put_writes` on the instance and adds
up the time each call takes, by round: a round starts with the write of its draft (a
write to the `drafts` channel) and takes every write after it until the next draft, so
its steps' checkpoints and writes (generate, critique, and route when it runs) count.
The time includes serializing (and compressing) what is stored, which is where a
checkpoint holding the whole history paid for its length. Beside the time it counts the
bytes each round hands the saver (serialized with the saver's own serializer, outside
the timed call): a deterministic measure of the work, free of the machine's noise.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any


class WriteTimer:
    """Adds up the seconds of a saver's checkpoint writes per round (see the module)."""

    def __init__(self, saver: Any) -> None:
        """Time every `put` and `put_writes` of `saver` from now on."""
        self.seconds: dict[int, float] = defaultdict(float)
        self.cpu_seconds: dict[int, float] = defaultdict(float)
        self.bytes: dict[int, int] = defaultdict(int)
        self.round = 0
        self._lock = threading.Lock()
        self._serde = saver.serde
        saver.put = self._timed(saver.put, draws=False)
        saver.put_writes = self._timed(saver.put_writes, draws=True)

    def _size(self, args: tuple[Any, ...], draws: bool) -> int:
        values = [value for _, value in args[1]] if draws else [args[1]]
        return sum(len(self._serde.dumps_typed(value)[1]) for value in values)

    def _timed(self, method: Callable[..., Any], draws: bool) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if draws and any(channel == "drafts" for channel, _ in args[1]):
                with self._lock:
                    self.round += 1
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu
                size = self._size(args, draws)
                with self._lock:
                    self.seconds[self.round] += seconds
                    self.cpu_seconds[self.round] += cpu
                    self.bytes[self.round] += size

        return timed

    def of_rounds(self, rounds: Sequence[int], cpu: bool = True) -> float:
        """Return the median write time of `rounds` (a window smooths single rounds' noise).

        By default the CPU time of the writing thread (`time.thread_time`): what writing
        costs, without the waits for the disk and for other processes on a shared machine,
        which swamp a write of a millisecond or two; `cpu=False` gives the wall time.
        """
        times = self.cpu_seconds if cpu else self.seconds
        return statistics.median(times[number] for number in rounds)

    def bytes_of_rounds(self, rounds: Sequence[int]) -> float:
        """Return the median bytes the writes of `rounds` handed the saver."""
        return statistics.median(self.bytes[number] for number in rounds)


def window(center: int, last: int, width: int = 5) -> list[int]:
    """Return `width` rounds around `center`, within 1..`last` (round 100: 96..100)."""
    start = max(1, min(center - width // 2, last - width + 1))
    return list(range(start, start + width))
