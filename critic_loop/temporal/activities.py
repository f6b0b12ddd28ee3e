"""The loop's I/O nodes as Temporal activities, with the store their worker opened once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from pydantic import ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError

from critic_loop.errors import UnsafeCheckpoint, UsageProblem
from critic_loop.nodes.node import PolicedNode
from critic_loop.nodes.operator_policy import Trust, check_context
from critic_loop.persistence import aopen_persistence
from critic_loop.state.context import Context, as_context
from critic_loop.state.errors import InvalidInput, ModelSetupError, TrustViolation
from critic_loop.state.operator_settings import operator_settings
from critic_loop.temporal.settings import TemporalSettings, fits_worker

FINAL_ERRORS: tuple[type[BaseException], ...] = (  # a retry cannot fix them
    InvalidInput,
    ValidationError,
    ModelSetupError,
    TrustViolation,
    UsageProblem,
    UnsafeCheckpoint,
    LookupError,  # a check's function, or an optional package, that is not there
    FileNotFoundError,
    TypeError,
)
SETTLE_CONTEXT = "critic_loop.settle_context"


@dataclass(frozen=True)
class WorkerResources:
    """The store a worker's activities share, and the settings its activities were given."""

    store: BaseStore | None
    context: Context
    settings: TemporalSettings
    location: str = ""


_current: WorkerResources | None = None


def _current_resources() -> WorkerResources:
    if _current is None:
        raise RuntimeError(
            "critic-loop activities run only inside a worker started by "
            "critic_loop.temporal.worker (critic-loop worker)"
        )
    return _current


@contextlib.asynccontextmanager
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


@contextlib.asynccontextmanager
async def _heartbeating() -> AsyncIterator[None]:  # three times per heartbeat_timeout
    timeout = activity.info().heartbeat_timeout
    if not timeout:
        yield
        return
    interval = max(timeout.total_seconds() / 3, 0.05)

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(interval)

    beating = asyncio.create_task(beat())
    try:
        yield
    finally:
        beating.cancel()  # it ends at its next await; the activity's result does not wait


@contextlib.contextmanager
def _final_errors() -> Any:
    try:
        yield
    except FINAL_ERRORS as error:
        name = type(error).__name__
        raise ApplicationError(f"{name}: {error}", type=name, non_retryable=True) from error


def activity_body(name: str, node: PolicedNode) -> Callable[[Any, Runtime[Any]], Awaitable[Any]]:
    """Return what the activity of I/O node `node` runs on a worker."""

    async def body(state: Any, runtime: Runtime[Any]) -> Any:
        async with _heartbeating():
            with _final_errors():
                context = as_context(runtime.context)  # a dict once it crossed the boundary
                store = _current_resources().store
                running = runtime.override(context=context, store=store)
                return await node.ainvoke(state, runtime=running)

    # the plugin identifies an activity by module and qualified name: one per node
    body.__name__ = body.__qualname__ = name
    body.__doc__ = f"Run the {name} step on this worker."
    return body


@activity.defn(name=SETTLE_CONTEXT)
async def settle_context(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Settle a run's context here (unset budgets become this worker's ceilings), or refuse it."""
    worker = _current_resources()
    with _final_errors():
        untrusted = operator_settings().untrusted_input
        context = check_context(as_context(dict(fields)), Trust(served=untrusted))
        problem = fits_worker(context, worker.context, worker.settings)
        if problem is not None:
            raise UsageProblem(problem)
        return context.model_dump(mode="json")
