"""How much the command line says: `--quiet` (the final draft), `--verbose`, `--debug`."""

from __future__ import annotations

import logging
from dataclasses import dataclass

LIBRARY_LOGGERS = ("critic_loop", "benchmarks")
"""The loggers `--verbose` and `--debug` open up (LangChain's and httpx's stay at WARNING)."""


@dataclass(frozen=True)
class Verbosity:
    """The choice of `--quiet`, `--verbose` and `--debug` for this command."""

    quiet: bool = False
    verbose: bool = False
    debug: bool = False

    @property
    def library_level(self) -> int:
        if self.debug:
            return logging.DEBUG
        if self.verbose:
            return logging.INFO
        return logging.ERROR if self.quiet else logging.WARNING


_chosen = Verbosity()


def current() -> Verbosity:
    """Return this command's verbosity (the default until the group's options are read)."""
    return _chosen


def choose(verbosity: Verbosity) -> None:
    """Make `verbosity` this command's, and set the log levels it implies."""
    global _chosen
    _chosen = verbosity
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(verbosity.library_level)
