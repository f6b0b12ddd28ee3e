"""The loop's I/O steps as Temporal activities: the same node logic, run on a worker.

The plugin runs `activity_body(name, node)` in an activity for every node of the graph that
does I/O. It runs the `Node` the in-process graph runs, as `graph.ainvoke` would
(`Node.arun`: the context held to the operator's policy on this worker, the typed input
rebuilt from the plain data that crossed the boundary), with the worker's rule store
(activities get none from the plugin). It heartbeats in the background, so a dead worker is
noticed after the activity's `heartbeat_timeout`, and turns errors no retry can fix (bad
input, a model that cannot be created, a refused setting) into non-retryable failures.

`settle_context` is the one activity outside the graph: it completes a run's context
from the worker's environment, as the LangGraph server does, before the graph starts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from langgraph.runtime import Runtime
from pydantic import ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError

from critic_loop.errors import UnsafeCheckpoint, UsageProblem
from critic_loop.nodes.node import Node
from critic_loop.nodes.operator_policy import Trust, check_context
from critic_loop.state.context import as_context
from critic_loop.state.errors import InvalidInput, ModelSetupError, TrustViolation
from critic_loop.state.operator_settings import operator_settings
from critic_loop.temporal import resources
from critic_loop.temporal.settings import fits_worker

FINAL_ERRORS: tuple[type[BaseException], ...] = (
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
"""Errors that a retry cannot fix: the run fails at once, with the error's name and text."""

SETTLE_CONTEXT = "critic_loop.settle_context"
"""The activity type of `settle_context`."""


@contextlib.asynccontextmanager
async def heartbeating() -> AsyncIterator[None]:
    """Heartbeat in the background while the block runs (three times per heartbeat_timeout)."""
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
def final_errors() -> Any:
    """Make the errors no retry can fix non-retryable activity failures."""
    try:
        yield
    except FINAL_ERRORS as error:
        name = type(error).__name__
        raise ApplicationError(f"{name}: {error}", type=name, non_retryable=True) from error


def activity_body(name: str, node: Node) -> Callable[[Any, Runtime[Any]], Awaitable[Any]]:
    """Return what the activity of I/O node `node` runs on a worker (module docstring)."""

    async def body(state: Any, runtime: Runtime[Any]) -> Any:
        async with heartbeating():
            with final_errors():
                context = as_context(runtime.context)  # a dict once it crossed the boundary
                store = resources.current().store
                return await node.arun(state, runtime.override(context=context, store=store))

    # the plugin identifies an activity by module and qualified name: one per node
    body.__name__ = body.__qualname__ = name
    body.__doc__ = f"Run the {name} step on this worker."
    return body


@activity.defn(name=SETTLE_CONTEXT)
async def settle_context(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Complete a run's context from this worker's environment; refuse what it cannot run.

    Fields the client left out take the worker's `CRITIC_LOOP_<FIELD>` values, else the
    defaults, as they would on the LangGraph server; held to the worker's ceilings (an
    unset budget becomes the ceiling), so the workflow's routing sees the run's budgets.
    """
    worker = resources.current()
    with final_errors():
        untrusted = operator_settings().untrusted_input
        context = check_context(as_context(dict(fields)), Trust(served=untrusted))
        problem = fits_worker(context, worker.context, worker.settings)
        if problem is not None:
            raise UsageProblem(problem)
        return context.model_dump(mode="json")
