"""A node: its sync and async bodies, behind the operator's policy.

A `Node` gives its body the runtime with the context `settled`, so no step runs around the
policy, not even one a client reaches with `Command(goto=Send(...))`. Under `ainvoke` a
sync-only body runs in `NODE_THREADS`, not the loop's small default executor, where a body
waiting on a memory scope's lock could starve the store's own work.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints

from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.errors import InvalidUpdateError
from langgraph.runtime import Runtime, get_runtime
from pydantic import BaseModel

from critic_loop.nodes.operator_policy import needs_network, settled

R = TypeVar("R")
E = TypeVar("E")

NODE_THREADS = ThreadPoolExecutor(max_workers=32, thread_name_prefix="critic-loop-node")


class Node(Runnable[Any, Any]):
    """Wraps the sync body: LangGraph reads the input schema and `Command` destinations there."""

    def __init__(
        self,
        func: Callable[[Any, Runtime[Any]], Any],
        afunc: Callable[[Any, Runtime[Any]], Awaitable[Any]] | None = None,
    ) -> None:
        self.func, self.afunc = func, afunc
        functools.update_wrapper(self, func)
        self.name = func.__name__
        self.schema = get_type_hints(func).get(next(iter(inspect.signature(func).parameters)))

    def typed(self, state: Any) -> Any:
        """Read a plain-data input (a `Send`'s payload) as the body's pydantic schema."""
        schema = self.schema
        if isinstance(state, dict) and isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema.model_validate(state)
        return state

    if TYPE_CHECKING:

        def __call__(self, state: Any, runtime: Runtime[Any]) -> Any:
            """Run the sync body behind the policy."""

    else:

        def __call__(self, state, runtime):  # unannotated: LangGraph reads `__wrapped__`'s
            """Run the sync body behind the policy."""
            return self.func(self.typed(state), settled(runtime))

    async def arun(self, state: Any, runtime: Runtime[Any]) -> Any:
        """Run the async body (else the sync one, in `NODE_THREADS`) behind the policy."""
        if needs_network(runtime):  # ask the model server which model it serves off the loop
            runtime = await asyncio.to_thread(settled, runtime)
        else:
            runtime = settled(runtime)
        if self.afunc is not None:
            return await self.afunc(self.typed(state), runtime)
        context = contextvars.copy_context()  # LangGraph's config, for interrupt() and streams
        body = functools.partial(context.run, self.func, self.typed(state), runtime)
        return await asyncio.get_running_loop().run_in_executor(NODE_THREADS, body)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:  # noqa: A002
        """Run the sync body (LangGraph already traces the node; no run of its own)."""
        return self.func(self.typed(input), settled(get_runtime()))

    async def ainvoke(
        self,
        input: Any,  # noqa: A002
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run the async body."""
        return await self.arun(input, get_runtime())


def policed_path(
    func: Callable[[Any, Runtime[Any]], R], outside_a_run: E | None = None
) -> Callable[[Any], R | E]:
    """Return a conditional edge's decision behind the operator's policy, like a `Node`.

    `update_state` (a state edit) runs edges outside any run, with no runtime: the edge then
    goes to `outside_a_run`, the step that decides once the run goes on, or refuses the edit.
    """

    @functools.wraps(func)
    def path(state: Any) -> R | E:
        runtime: Runtime[Any] | None = get_runtime()
        if runtime is not None:
            return func(state, settled(runtime))
        if outside_a_run is None:
            raise InvalidUpdateError(f"{func.__name__} decides only in a run: edit as another step")
        return outside_a_run

    path.__signature__ = inspect.signature(path, follow_wrapped=False)  # type: ignore[attr-defined]
    return path
