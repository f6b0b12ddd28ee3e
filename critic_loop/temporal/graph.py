"""The loop as a graph for Temporal: `loop_builder`'s, with what Temporal needs passed in.

Temporal's LangGraph plugin runs a graph's loop in a workflow and its nodes as activities.
`build_temporal_graph` calls the app's `loop_builder` with these differences:

1. `TemporalGraph` places each node: one that routes with `Command` (route, finalize) and
   every conditional edge runs in the workflow, as an async function (the plugin cannot
   carry a `Send` back from an activity; a workflow has no thread pool for a sync one);
   every other node runs as an activity (`activities.activity_body`), with the worker's
   activity options.
2. In the workflow, a decision reads the run's context as a worker settled it before the
   first step (`settle_context`), not held to the operator's policy again: that reads the
   worker's environment, which a workflow must not (a replay on another worker could
   decide otherwise). The activities, which do the I/O, hold it to the policy as every
   node does in process. Their store is the workers' (`STORE_ON_WORKERS` stands in for it).
3. Distill's steps are the loop's own (`add_distill_steps`, state `TemporalState`): the
   plugin runs functions as nodes, not a compiled subgraph.
4. No review: `interrupt` cannot pause a workflow (`settings.unsupported_setting`).

The plugin changes the graph it is given, so each plugin needs a graph of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
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

GRAPH_NAME = "critic_loop"
"""The graph's name with the plugin; its activities are named `critic_loop.<node>`."""


def turn_summary(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """Summarise a generate activity by its turn (the plugin's `summary_fn`)."""
    turn = WorkerTurn.model_validate(args[0])  # a Send's payload: plain JSON
    return f"round {turn.round}, candidate {turn.candidate}: {turn.mode}"


ACTIVITY_METADATA: dict[str, dict[str, Any]] = {"generate": {"summary_fn": turn_summary}}
"""Plugin metadata of particular activity steps, by step name."""


class StoreOnWorkers(BaseStore):
    """Stands in the workflow for the rule store the workers hold: present, never used there."""

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Refuse: the store is used only by activities, on their workers."""
        raise RuntimeError("the rule store is on the Temporal workers; a workflow cannot use it")

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Refuse: the store is used only by activities, on their workers."""
        return self.batch(ops)


STORE_ON_WORKERS = StoreOnWorkers()
"""What a decision in the workflow sees as the run's store."""


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


class TemporalGraph(Builder):
    """A `StateGraph` whose nodes run where the plugin can run them (module docstring, 1)."""

    def __init__(self, *args: Any, options: Mapping[str, Mapping[str, Any]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.options = options

    def add_node(self, node: Any, action: Any = None, **kwargs: Any) -> Any:
        """Add `action` (a `Node`) in the workflow if it routes with `Command`, else as an activity.

        Raises:
            KeyError: an activity node has no options.
        """
        if get_origin(get_type_hints(action.func).get("return")) is Command:
            return super().add_node(node, in_workflow(action.func), metadata=IN_WORKFLOW)
        if node not in self.options:
            raise KeyError(f"no activity options for step {node!r} (see node_budgets)")
        metadata = {**IN_ACTIVITY, **ACTIVITY_METADATA.get(node, {}), **self.options[node]}
        return super().add_node(
            node, activity_body(node, action), metadata=metadata, input_schema=action.schema
        )

    def add_conditional_edges(self, source: str, path: Any, path_map: Any = None) -> Any:
        """Add the edge, its decision run in the workflow."""
        decision = getattr(path, "__wrapped__", path)  # not `policed_path`: module doc, 2
        return super().add_conditional_edges(source, in_workflow(decision), path_map)


IN_WORKFLOW: dict[str, Any] = {"execute_in": "workflow"}
IN_ACTIVITY: dict[str, Any] = {"execute_in": "activity"}


def build_temporal_graph(
    options: Mapping[str, Mapping[str, Any]], *, post_critique_hook: NodeBody | None = None
) -> Builder:
    """Build a fresh graph for the plugin, each activity with its `options` (by node)."""

    def new_graph(*args: Any, **kwargs: Any) -> Builder:
        return TemporalGraph(*args, options=options, **kwargs)

    return loop_builder(
        new_graph,
        state=TemporalState,
        add_distill=add_distill_steps,
        post_critique_hook=post_critique_hook,
    )
