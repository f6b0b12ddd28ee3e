"""A live status line on a terminal while a model works: the step, and for how long."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

FRAMES = "|/-\\"


NEXT_STEPS = {
    "sandbox": "recalling rules for the first draft",
    "recall": "the worker is drafting round 1",
    "draft": "the critic is grading round {round}",
    "verdict": "deciding what follows round {round} (revise, resample or stop)",
}
"""What the run does after each kind of event (a finished run may still distill rules)."""


def next_step(event: dict[str, Any]) -> str | None:
    """Say what the run is doing after `event`; None when nothing is left to wait for."""
    if event.get("event") == "finished" and event.get("learning"):
        return "distilling rules from this run"
    step = NEXT_STEPS.get(str(event.get("event")))
    return step.format(round=event.get("round")) if step else None


class Ticker:
    """Redraw one status line on `stream` every `interval` seconds, if it is a terminal."""

    def __init__(
        self,
        stream: TextIO | None = None,
        interval: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
        enabled: bool = True,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval
        self.clock = clock
        self._status: str | None = None
        self._since = clock()
        self._frame = 0
        self._width = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Ticker:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="ticker", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        with self._lock:
            self._erase()
            self._status = None

    def show(self, status: str | None) -> None:
        """Show `status` from now on (None hides the line), counting seconds afresh."""
        with self._lock:
            self._erase()
            self._status = status
            self._since = self.clock()
            self._draw()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Erase the status line while other output is printed, then draw it again."""
        with self._lock:
            self._erase()
            yield
            self._draw()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                self._frame += 1
                self._draw()

    def _draw(self) -> None:
        if not self.enabled or self._status is None:
            return
        seconds = self.clock() - self._since
        line = f"{FRAMES[self._frame % len(FRAMES)]} {self._status} ({seconds:.0f} s)"
        self.stream.write("\r" + line.ljust(self._width))
        self.stream.flush()
        self._width = len(line)

    def _erase(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
