"""The loop's I/O nodes as Temporal activities: the same node logic, rebuilt on the worker.

The plugin runs each of these module-level functions in an activity. What crosses the
activity boundary is plain data, so each node here:

1. rebuilds its typed input (`WorkerTurn`, `CriticView`, ...) from the dict it receives,
   and the run's `Context` from the context's dict;
2. gives the node logic the worker's rule store (activities get none from the plugin);
3. heartbeats in the background while the logic runs, so a dead worker is noticed after
   the activity's `heartbeat_timeout`, not its whole `start_to_close_timeout`;
4. runs the logic that the in-process graph runs (`generate_steps`, `critique_steps`, ...)
   with its async calls, exactly as `graph.ainvoke` would;
5. turns errors that no retry can fix (bad input, a model that cannot be created, a
   refused setting) into non-retryable failures, so the run fails at once with them.

`settle_context` is the one activity outside the graph: it completes a run's context
from the worker's environment, as the LangGraph server does, before the graph starts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, TypeVar

from langgraph.runtime import Runtime
from pydantic import BaseModel, ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError

from critic_loop.errors import UnsafeCheckpoint, UsageProblem
from critic_loop.nodes.loop.check_input import SubmittedInput
from critic_loop.nodes.loop.check_input import check_input as check_input_logic
from critic_loop.nodes.loop.critique import critique_steps
from critic_loop.nodes.loop.generate import generate_steps
from critic_loop.nodes.memory.consolidate_rules import consolidate_rules_steps
from critic_loop.nodes.memory.propose_rules import propose_rules_steps
from critic_loop.nodes.memory.recall import RecallView, recall_steps
from critic_loop.nodes.memory.record_usage import UsageView, record_rule_usage_steps
from critic_loop.nodes.steps import Steps, arun_steps
from critic_loop.state.context import Context, as_context
from critic_loop.state.distill import DistillState
from critic_loop.state.errors import InvalidInput, ModelSetupError, TrustViolation
from critic_loop.state.loop import CriticView, WorkerTurn
from critic_loop.temporal import resources
from critic_loop.temporal.settings import fits_worker

M = TypeVar("M", bound=BaseModel)

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


def typed(model: type[M], state: Any) -> M:
    """Return the node's input as `model` (it arrives as a dict)."""
    return state if isinstance(state, model) else model.model_validate(state)


async def run_node(
    logic: Callable[[M, Runtime[Context]], Steps[dict[str, Any]]],
    model: type[M],
    state: Any,
    runtime: Runtime[Any],
) -> dict[str, Any]:
    """Run node `logic` on `state` as the in-process graph's async path does."""
    async with heartbeating():
        with final_errors():
            return await arun_steps(logic(typed(model, state), node_runtime(runtime)))


async def check_input(state: SubmittedInput, runtime: Runtime[Context]) -> dict[str, Any]:
    """Validate the task, rubric and models before the first draft (see nodes.loop)."""
    async with heartbeating():
        with final_errors():
            return await asyncio.to_thread(check_input_logic, state, node_runtime(runtime))


async def recall(state: RecallView, runtime: Runtime[Context]) -> dict[str, Any]:
    """Give the worker the scope's most relevant rules."""
    return await run_node(recall_steps, RecallView, state, runtime)


async def generate(state: WorkerTurn, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the worker for the draft its turn (`state`, sent by the route) describes."""
    return await run_node(generate_steps, WorkerTurn, state, runtime)


async def critique(state: CriticView, runtime: Runtime[Context]) -> dict[str, Any]:
    """Grade every draft of the newest round: checks, then the judge."""
    return await run_node(critique_steps, CriticView, state, runtime)


async def record_rule_usage(state: UsageView, runtime: Runtime[Context]) -> dict[str, Any]:
    """Add this run to the usage statistics of the rules it consulted (once per run)."""
    return await run_node(record_rule_usage_steps, UsageView, state, runtime)


async def propose_rules(state: DistillState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the distiller what the finished run teaches."""
    return await run_node(propose_rules_steps, DistillState, state, runtime)


async def consolidate_rules(state: DistillState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Apply the proposed rule operations to the scope, without duplicates."""
    return await run_node(consolidate_rules_steps, DistillState, state, runtime)


@activity.defn(name=SETTLE_CONTEXT)
async def settle_context(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Complete a run's context from this worker's environment; refuse what it cannot run.

    Fields the client left out take the worker's `CRITIC_LOOP_<FIELD>` values, else the
    defaults, as they would on the LangGraph server.
    """
    worker = resources.current()
    with final_errors():
        context = as_context(dict(fields))
        problem = fits_worker(context, worker.context, worker.settings)
        if problem is not None:
            raise UsageProblem(problem)
        return context.model_dump(mode="json")
