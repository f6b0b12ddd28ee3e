"""What `critic-loop calibrate` shows while the critic grades: a bar, or a line per artifact.

On a terminal (stderr is a TTY) click's progress bar shows the artifacts graded, the
critic calls made so far and the time left (from the mean time per artifact). Piped, one
plain line per artifact graded, so a log shows how far the command got and how fast.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any

import click


class GradingProgress:
    """Report progress over `total` artifacts; use as a context manager."""

    def __init__(self, total: int, *, terminal: bool | None = None) -> None:
        """Show a bar if `terminal` (default: whether stderr is a TTY), else plain lines."""
        self.total = total
        self.done = 0
        self.calls = 0
        self.started = time.monotonic()
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self._bar: Any = None

    def __enter__(self) -> GradingProgress:
        """Start the bar (on a terminal)."""
        if self.terminal:
            self._bar = click.progressbar(
                length=self.total,
                label="grading",
                file=sys.stderr,
                show_eta=True,
                show_pos=True,
                item_show_func=lambda item: item,
            )
            self._bar.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        """Finish the bar (on a terminal), leaving the cursor on a fresh line."""
        if self._bar is not None:
            self._bar.__exit__(kind, error, trace)

    def graded(self, name: str, calls: int, outcome: str) -> None:
        """Record one artifact graded with `calls` critic calls; `outcome` says how it went."""
        self.done += 1
        self.calls += calls
        if self._bar is not None:
            self._bar.update(1, f"{self.calls} call(s); {name}: {outcome}")
            return
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done)
        click.echo(
            f"graded {self.done}/{self.total} {name}: {outcome}; {calls} call(s), "
            f"{self.calls} in all; {elapsed:.0f} s so far, about {left:.0f} s left",
            err=True,
        )
