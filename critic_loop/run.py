"""Run the refinement loop from Python in one call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import uuid4

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore

from critic_loop.results import as_context, result_of
from graphs.app import build_graph
from state.context import Context
from state.loop import LoopState
from state.rubric import Criterion


def loop_input(task: str, rubric: Sequence[Criterion | Mapping[str, Any]]) -> dict[str, Any]:
    """Build the graph input for `task` and `rubric` as plain JSON-ready data."""
    return {
        "task": task,
        "rubric": [
            criterion.model_dump() if isinstance(criterion, Criterion) else dict(criterion)
            for criterion in rubric
        ],
    }


def thread_config(thread_id: str | None = None) -> RunnableConfig:
    """Build the run config for `thread_id`, or for a new thread when none is given."""
    return {"configurable": {"thread_id": thread_id or uuid4().hex}}


def run_loop(
    task: str,
    rubric: Sequence[Criterion | Mapping[str, Any]],
    *,
    context: Context | Mapping[str, Any] | None = None,
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    thread_id: str | None = None,
) -> LoopState:
    """Run the loop to its end and return the final state.

    Raises:
        LoopExhausted, LoopStalled, VerifierFailed: the run did not pass and the context
            has `on_exhausted="raise"`.
    """
    resolved = as_context(context)
    graph = build_graph(checkpointer=checkpointer, store=store)
    values = graph.invoke(loop_input(task, rubric), thread_config(thread_id), context=resolved)
    return result_of(values, resolved)


async def arun_loop(
    task: str,
    rubric: Sequence[Criterion | Mapping[str, Any]],
    *,
    context: Context | Mapping[str, Any] | None = None,
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    thread_id: str | None = None,
) -> LoopState:
    """Async twin of `run_loop`."""
    resolved = as_context(context)
    graph = build_graph(checkpointer=checkpointer, store=store)
    values = await graph.ainvoke(
        loop_input(task, rubric), thread_config(thread_id), context=resolved
    )
    return result_of(values, resolved)
