"""What a worker process shares among its activities: the rule store and its own settings.

The plugin gives activities no store, so each worker opens the configured database once
(`critic_loop.persistence`, with its scope locks) for its activities.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from langgraph.store.base import BaseStore

from critic_loop.persistence import aopen_persistence
from critic_loop.state.context import Context
from critic_loop.temporal.settings import TemporalSettings


@dataclass(frozen=True)
class WorkerResources:
    """The store a worker's activities share, and the settings its activities were given."""

    store: BaseStore | None
    context: Context
    settings: TemporalSettings
    location: str = ""


_current: WorkerResources | None = None


def current() -> WorkerResources:
    """Return this worker process's resources.

    Raises:
        RuntimeError: no worker is running in this process.
    """
    if _current is None:
        raise RuntimeError(
            "critic-loop activities run only inside a worker started by "
            "critic_loop.temporal.worker (critic-loop worker)"
        )
    return _current


@asynccontextmanager
async def worker_resources(
    database: str | Path | None, context: Context, settings: TemporalSettings
) -> AsyncIterator[WorkerResources]:
    """Open the database (see `database_target`) for this worker's activities while inside."""
    global _current
    async with aopen_persistence(database) as persistence:
        _current = WorkerResources(persistence.store, context, settings, persistence.location)
        try:
            yield _current
        finally:
            _current = None
