"""Node logic written once, run with the sync API under `invoke` and async under `ainvoke`.

A node that does I/O is written as a generator of `Call`s: it yields each call it needs
(a model request, a store read) and is sent the result back. `run_steps` makes the calls
with the synchronous methods, `arun_steps` awaits the asynchronous ones, and `StepsNode`
gives LangGraph both, as a LangChain `Runnable` with `invoke` and `ainvoke`. So
`graph.invoke` never meets an async-only node, and `graph.ainvoke` (which the dev server
uses) never blocks its event loop on sync I/O.

The node reads its `Runtime` with LangGraph's `get_runtime()`, and its input schema is the
annotation of its logic's first parameter (`node.InputType`), so the graph builder states
it from the same place the logic declares it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_type_hints

from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.runtime import get_runtime
from pydantic import BaseModel

from critic_loop.nodes.operator_policy import context_needs_network, context_of

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Call(Generic[T]):
    """One piece of I/O, as a sync callable and its async twin."""

    sync: Callable[[], T]
    asynchronous: Callable[[], Awaitable[T]]


def invoke(runnable: Runnable[Any, T], value: Any) -> Call[T]:
    """Describe running `runnable` on `value` (with `invoke` or `ainvoke`)."""
    return Call(lambda: runnable.invoke(value), lambda: runnable.ainvoke(value))


def call(
    sync: Callable[..., T], asynchronous: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any
) -> Call[T]:
    """Describe calling `sync(*args, **kwargs)`, or awaiting its async twin."""
    return Call(lambda: sync(*args, **kwargs), lambda: asynchronous(*args, **kwargs))


Steps = Generator[Call[Any], Any, R]
"""Node logic: yields the calls it needs, receives their results, returns the update."""


def run_steps(steps: Steps[R]) -> R:
    """Drive `steps` to completion with synchronous calls."""
    result: Any = None
    error: Exception | None = None
    while True:
        try:
            call = steps.throw(error) if error is not None else steps.send(result)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        try:
            result, error = call.sync(), None
        except Exception as raised:  # handed to the node logic, which may handle it
            result, error = None, raised


async def arun_steps(steps: Steps[R]) -> R:
    """Drive `steps` to completion with asynchronous calls."""
    result: Any = None
    error: Exception | None = None
    while True:
        try:
            call = steps.throw(error) if error is not None else steps.send(result)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        try:
            result, error = await call.asynchronous(), None
        except Exception as raised:  # handed to the node logic, which may handle it
            result, error = None, raised


def subroutine(logic: Callable[[], Steps[R]]) -> Call[R]:
    """Describe running a whole piece of step logic as one call (to run several together)."""
    return Call(lambda: run_steps(logic()), lambda: arun_steps(logic()))


def gather(calls: Sequence[Call[T]]) -> Call[list[T]]:
    """Describe running `calls` side by side under async (one after another under sync)."""

    async def together() -> list[T]:
        return list(await asyncio.gather(*(call.asynchronous() for call in calls)))

    return Call(lambda: [call.sync() for call in calls], together)


class StepsNode(Runnable[Any, R]):
    """A LangGraph node with a sync and an async body, made from one `logic(state, runtime)`.

    It calls the logic directly: LangGraph already traces the node as a run of its own,
    so a second callback run per call (what `RunnableLambda` adds) would only cost time.
    """

    def __init__(self, logic: Callable[[Any, Any], Steps[R]]) -> None:
        """Wrap `logic`; its first parameter's annotation is the node's input schema."""
        self.logic = logic
        self.name = getattr(logic, "__name__", "node").removesuffix("_steps")
        first = next(iter(inspect.signature(logic).parameters))
        self._input_type: type[Any] = get_type_hints(logic)[first]

    @property
    def InputType(self) -> type[Any]:  # noqa: N802 (LangChain's name)
        """The node's input schema: the annotation of its logic's first parameter."""
        return self._input_type

    def _typed(self, input: Any) -> Any:  # noqa: A002
        """Read a plain-data input (a `Send` payload) as the node's pydantic input schema."""
        schema = self._input_type
        if isinstance(input, dict) and isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema.model_validate(input)
        return input

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> R:  # noqa: A002
        """Run the logic with synchronous calls."""
        return run_steps(self.logic(self._typed(input), get_runtime()))

    async def ainvoke(
        self,
        input: Any,  # noqa: A002
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> R:
        """Run the logic with asynchronous calls."""
        runtime = get_runtime()
        if context_needs_network(runtime):  # ask the model server off the event loop once
            await asyncio.to_thread(context_of, runtime)
        return await arun_steps(self.logic(self._typed(input), runtime))
