"""A node behind the operator's policy: its sync and async bodies, given the context settled.

Bodies and edges (`policed_edge`) get the runtime `within_policy` returns, even when a client
reaches them with `Command(goto=Send(...))`. Under `ainvoke` a sync-only body runs in
`NODE_THREADS`: one waiting on a scope's lock must not starve the loop's default executor.
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

from critic_loop.nodes.operator_policy import needs_network, within_policy

R = TypeVar("R")
E = TypeVar("E")

NODE_THREADS = ThreadPoolExecutor(max_workers=32, thread_name_prefix="critic-loop-node")


class PolicedNode(Runnable[Any, Any]):
    """A node's bodies behind the policy; LangGraph reads its input schema from the sync one."""

    def __init__(
        self,
        func: Callable[[Any, Runtime[Any]], Any],
        afunc: Callable[[Any, Runtime[Any]], Awaitable[Any]] | None = None,
    ) -> None:
        self.func, self.afunc = func, afunc
        functools.update_wrapper(self, func)  # `__wrapped__`: LangGraph reads its signature
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

        def __call__(self, state, runtime):  # unannotated: LangGraph reads the body's hints
            """Run the sync body behind the policy."""
            return self.func(self.typed(state), within_policy(runtime))

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:  # noqa: A002
        """Run the sync body (LangGraph already traces the node; no run of its own)."""
        return self.func(self.typed(input), within_policy(get_runtime()))

    async def ainvoke(
        self,
        input: Any,  # noqa: A002
        config: RunnableConfig | None = None,
        *,
        runtime: Runtime[Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run the async body, else the sync one in `NODE_THREADS` (`runtime`: the run's)."""
        given = runtime or get_runtime()
        if needs_network(given):  # ask the model server which model it serves off the loop
            policed = await asyncio.to_thread(within_policy, given)
        else:
            policed = within_policy(given)
        if self.afunc is not None:
            return await self.afunc(self.typed(input), policed)
        context = contextvars.copy_context()  # LangGraph's config, for interrupt() and streams
        body = functools.partial(context.run, self.func, self.typed(input), policed)
        return await asyncio.get_running_loop().run_in_executor(NODE_THREADS, body)


def policed_edge(
    func: Callable[[Any, Runtime[Any]], R], outside_a_run: E | None = None
) -> Callable[[Any], R | E]:
    """Return a conditional edge's decision behind the operator's policy, as a node's is.

    Outside a run (`update_state`) it goes to `outside_a_run`, or refuses the edit if None.
    """

    @functools.wraps(func)
    def path(state: Any) -> R | E:
        runtime: Runtime[Any] | None = get_runtime()
        if runtime is not None:
            return func(state, within_policy(runtime))
        if outside_a_run is None:
            raise InvalidUpdateError(f"{func.__name__} decides only in a run: edit as another step")
        return outside_a_run

    path.__signature__ = inspect.signature(path, follow_wrapped=False)  # type: ignore[attr-defined]
    return path
