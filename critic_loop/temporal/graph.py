"""The loop for Temporal: `loop_builder`'s graph, with what Temporal needs (docs/deploying.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, get_origin, get_type_hints

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, Op, Result
from langgraph.types import Command
from pydantic import Field

from critic_loop.graphs.app import Builder, NodeBody, loop_builder
from critic_loop.graphs.distill import add_distill_steps
from critic_loop.state.context import as_context
from critic_loop.state.loop import LoopState, WorkerTurn
from critic_loop.state.rules import Lesson, RuleOperation
from critic_loop.temporal.activities import activity_body

GRAPH_NAME = "critic_loop"  # its activities are named `critic_loop.<node>`


def _turn_summary(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:  # `summary_fn`
    turn = WorkerTurn.model_validate(args[0])  # a Send's payload: plain JSON
    return f"round {turn.round}, candidate {turn.candidate}: {turn.mode}"


ACTIVITY_METADATA: dict[str, dict[str, Any]] = {"generate": {"summary_fn": _turn_summary}}


class _StoreOnWorkers(BaseStore):
    """Stands in the workflow for the rule store the workers hold: present, never used there."""

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        raise RuntimeError("the rule store is on the Temporal workers; a workflow cannot use it")

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return self.batch(ops)


STORE_ON_WORKERS = _StoreOnWorkers()


def in_workflow(decision: Callable[..., Any]) -> Callable[..., Any]:
    """Return `decision` as the workflow runs it: async, the settled context, no store."""
    hints = get_type_hints(decision)
    takes_runtime = decision.__code__.co_argcount > 1

    async def decide(state: Any, runtime: Runtime[Any]) -> Any:
        if not takes_runtime:
            return decision(state)
        settled = runtime.override(context=as_context(runtime.context), store=STORE_ON_WORKERS)
        return decision(state, settled)

    decide.__name__ = decide.__qualname__ = decision.__name__
    decide.__doc__ = decision.__doc__
    decide.__annotations__ = {  # resolved: LangGraph reads the state's schema from them
        "state": hints.get(decision.__code__.co_varnames[0], Any),
        "runtime": Runtime[Any],
        "return": hints.get("return", Any),
    }
    return decide


class TemporalState(LoopState):
    """The loop's state with distillation's working fields (its steps are the loop's own)."""

    lessons: list[Lesson] = Field(default_factory=list)
    proposed: list[RuleOperation] | None = None
    source_thread_id: str | None = None


class _TemporalGraph(Builder):
    """A `StateGraph` whose nodes run where the plugin can run them."""

    def __init__(self, *args: Any, options: Mapping[str, Mapping[str, Any]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.options = options

    def add_node(self, node: Any, action: Any = None, **kwargs: Any) -> Any:
        if get_origin(get_type_hints(action.func).get("return")) is Command:
            return super().add_node(node, in_workflow(action.func), metadata=IN_WORKFLOW)
        if node not in self.options:
            raise KeyError(f"no activity options for step {node!r} (see node_budgets)")
        metadata = {**IN_ACTIVITY, **ACTIVITY_METADATA.get(node, {}), **self.options[node]}
        return super().add_node(
            node, activity_body(node, action), metadata=metadata, input_schema=action.schema
        )

    def add_conditional_edges(self, source: str, path: Any, path_map: Any = None) -> Any:
        decision = getattr(path, "__wrapped__", path)  # unpoliced: a worker settled the context
        return super().add_conditional_edges(source, in_workflow(decision), path_map)


IN_WORKFLOW: dict[str, Any] = {"execute_in": "workflow"}
IN_ACTIVITY: dict[str, Any] = {"execute_in": "activity"}


def build_temporal_graph(
    options: Mapping[str, Mapping[str, Any]], *, post_critique_hook: NodeBody | None = None
) -> Builder:
    """Build a fresh graph for the plugin, each activity with its `options` (by node)."""
    return loop_builder(
        partial(_TemporalGraph, options=options),
        state=TemporalState,
        add_distill=add_distill_steps,
        post_critique_hook=post_critique_hook,
    )
