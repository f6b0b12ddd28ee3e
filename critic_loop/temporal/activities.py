"""The loop's I/O steps as Temporal activities: the same node logic, run on a worker.

The plugin runs `activity_body(step)` in an activity for every step of the graph that
does I/O. What crosses the activity boundary is plain data, so the body:

1. rebuilds the step's typed input (`WorkerTurn`, `CriticView`, ...) from the dict it
   receives, and the run's `Context` from the context's dict;
2. gives the node logic the worker's rule store (activities get none from the plugin);
3. heartbeats in the background while the logic runs, so a dead worker is noticed after
   the activity's `heartbeat_timeout`, not its whole `start_to_close_timeout`;
4. runs the node logic that the in-process graph runs, with its async calls (a
   `StepsNode`'s generator, as `graph.ainvoke` would; a sync function on a thread);
5. turns errors that no retry can fix (bad input, a model that cannot be created, a
   refused setting) into non-retryable failures, so the run fails at once with them.

`settle_context` is the one activity outside the graph: it completes a run's context
from the worker's environment, as the LangGraph server does, before the graph starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError

from critic_loop.errors import UnsafeCheckpoint, UsageProblem
from critic_loop.graphs.declaration import Step
from critic_loop.nodes.operator_policy import Trust, check_context
from critic_loop.nodes.steps import StepsNode, arun_steps
from critic_loop.state.context import Context, as_context
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

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.contextmanager
def final_errors() -> Any:
    """Make the errors no retry can fix non-retryable activity failures."""
    try:
        yield
    except FINAL_ERRORS as error:
        name = type(error).__name__
        raise ApplicationError(f"{name}: {error}", type=name, non_retryable=True) from error


def node_runtime(runtime: Runtime[Any]) -> Runtime[Context]:
    """Return the node's runtime with its typed `Context` and the worker's store."""
    context = as_context(runtime.context)  # a dict once it crossed the activity boundary
    return runtime.override(context=context, store=resources.current().store)


def typed(schema: type[Any], state: Any) -> Any:
    """Return the step's input as its schema reads it (a pydantic view arrives as a dict)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel) and isinstance(state, dict):
        return schema.model_validate(state)
    return state


def activity_body(step: Step) -> Callable[[Any, Runtime[Any]], Awaitable[Any]]:
    """Return what the activity of I/O step `step` runs on a worker (see the module doc)."""
    node = step.node

    async def body(state: Any, runtime: Runtime[Any]) -> Any:
        async with heartbeating():
            with final_errors():
                view, worker_runtime = typed(step.input_schema, state), node_runtime(runtime)
                if isinstance(node, StepsNode):
                    return await arun_steps(node.logic(view, worker_runtime))
                if inspect.iscoroutinefunction(node):
                    return await node(view, worker_runtime)
                return await asyncio.to_thread(node, view, worker_runtime)

    # the plugin identifies an activity by module and qualified name: one per step
    body.__name__ = body.__qualname__ = step.name
    body.__doc__ = f"Run the {step.name} step on this worker."
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
