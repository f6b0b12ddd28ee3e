"""How the graph differs on Temporal, each difference declared here beside the declaration.

Temporal's LangGraph plugin (`temporalio.langgraph`) runs a graph's loop in a workflow
and its nodes as activities. `for_temporal` turns a declaration (the app's `LOOP`) into
the one the Temporal worker builds (`critic_loop.temporal.graph`), and changes only this:

1. **No subgraph as a node.** The plugin runs plain functions as nodes, not a compiled
   graph, so a subgraph step's steps and edges become the graph's own (distill's
   `propose_rules` and `consolidate_rules`), and the state gains the subgraph's working
   fields (`inline_subgraphs`).
2. **Where each step runs.** The plugin cannot carry a `Send` back from an activity, so a
   decision (route, finalize, the branches) runs in the workflow (`execute_in:
   workflow`); every other step runs as an activity, with the options the worker gives
   it. The generate activity is summarised by its turn (`turn_summary`).
3. **Decisions are async** (`in_workflow`). The workflow runs the graph on its own event
   loop; a sync conditional edge would be sent to a thread pool, which a workflow has not.
4. **The settled context, not the operator's policy.** A decision reads the run's context
   as a worker settled it before the first step (`settled_context`), without checking it
   against the operator's policy: that reads the worker's environment, which a workflow
   must not (a replay on another worker could decide otherwise). The activities, which do
   the I/O, check it on their worker, as every node does in process.
5. **The store is on the workers.** A workflow has no store (each activity uses its
   worker's), so a decision sees `STORE_ON_WORKERS` in its place: finalize ends a run
   whose memory steps have nothing to do, as in process. It refuses to be used.
6. **No review.** LangGraph's `interrupt` cannot pause a Temporal workflow, so a run that
   asks for review is refused before its first step (`unsupported_setting`).

Everything else (the steps, their node logic and views, the edges, `route` and
`finalize` themselves) is the declaration's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, get_type_hints

from langgraph.graph import END, START
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, Op, Result
from pydantic import BaseModel, create_model

from critic_loop.graphs.declaration import Branch, Edge, GraphDeclaration, Step
from critic_loop.state.context import Context, as_context
from critic_loop.state.loop import WorkerTurn

IN_WORKFLOW: dict[str, Any] = {"execute_in": "workflow"}
"""The plugin's metadata for a step that runs in the workflow."""

IN_ACTIVITY: dict[str, Any] = {"execute_in": "activity"}
"""The plugin's metadata for a step that runs as an activity (the worker adds its options)."""


def turn_summary(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """Summarise a generate activity by its turn (the plugin's `summary_fn`)."""
    turn = WorkerTurn.model_validate(args[0])  # a Send's payload: plain JSON
    return f"round {turn.round}, candidate {turn.candidate}: {turn.mode}"


ACTIVITY_METADATA: dict[str, dict[str, Any]] = {"generate": {"summary_fn": turn_summary}}
"""Plugin metadata of particular activity steps, by step name."""


def unsupported_setting(context: Context) -> str | None:
    """Say why a run with `context` cannot run on Temporal, or None if it can."""
    if context.review != "never":
        return (
            f"review {context.review!r} is not available on Temporal (the LangGraph plugin "
            "does not carry interrupts); run it on LangGraph server or in-process, or set "
            "review to 'never'"
        )
    return None


def settled_context(runtime: Runtime[Any]) -> Context:
    """Return the run's context as a worker settled it (complete: no default is read)."""
    return as_context(runtime.context)


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
    """Return `decision` as the workflow runs it: async, settled context, workers' store.

    `decision` itself runs unchanged: it is given the runtime (with `STORE_ON_WORKERS`)
    and `read_context=settled_context` when its signature takes them.
    """
    parameters = inspect.signature(decision).parameters
    hints = get_type_hints(decision)

    async def decide(state: Any, runtime: Runtime[Any]) -> Any:
        extra: dict[str, Any] = {}
        if "runtime" in parameters:
            extra["runtime"] = runtime.override(store=STORE_ON_WORKERS)
        if "read_context" in parameters:
            extra["read_context"] = settled_context
        return decision(state, **extra)

    decide.__name__ = decide.__qualname__ = getattr(decision, "__name__", "decide")
    decide.__doc__ = decision.__doc__
    decide.__annotations__ = {  # resolved: LangGraph reads the state's schema from them
        "state": hints.get(next(iter(parameters)), Any),
        "runtime": Runtime[Any],
        "return": hints.get("return", Any),
    }
    return decide


def with_fields_of(state: type[BaseModel], other: type[BaseModel]) -> type[BaseModel]:
    """Return `state` with the fields of `other` that it lacks (annotations and defaults kept)."""
    hints = get_type_hints(other, include_extras=True)
    extra: dict[str, Any] = {
        name: (hints[name], info)
        for name, info in other.model_fields.items()
        if name not in state.model_fields
    }
    if not extra:
        return state
    return create_model(
        f"{state.__name__}With{other.__name__}", __base__=state, __module__=__name__, **extra
    )


def inline_subgraphs(declaration: GraphDeclaration) -> GraphDeclaration:
    """Return `declaration` with each subgraph step replaced by the subgraph's steps and edges.

    An edge into the subgraph step goes to the subgraph's first step instead, and the
    subgraph's edges to END end the graph; the state gains the subgraph's fields.

    Raises:
        ValueError: the subgraph step is reached other than by a plain edge, is followed
            by anything but END, or a subgraph step's name is taken.
    """
    state, edges = declaration.state, list(declaration.edges)
    steps: list[Step] = []
    for step in declaration.steps:
        if not isinstance(step.node, GraphDeclaration):
            steps.append(step)
            continue
        sub = inline_subgraphs(step.node)
        _check_inlinable(declaration, step.name, sub)
        (entry,) = (e.target for e in sub.edges if isinstance(e, Edge) and e.source == START)
        steps.extend(sub.steps)
        edges = [
            Edge(e.source, entry) if isinstance(e, Edge) and e.target == step.name else e
            for e in edges
            if not (isinstance(e, Edge) and e.source == step.name)
        ]
        edges.extend(e for e in sub.edges if not (isinstance(e, Edge) and e.source == START))
        state = with_fields_of(state, sub.state)
    return replace(declaration, state=state, steps=tuple(steps), edges=tuple(edges))


def _check_inlinable(parent: GraphDeclaration, name: str, sub: GraphDeclaration) -> None:
    taken = {step.name for step in parent.steps} & {step.name for step in sub.steps}
    routed_to = any(name in s.destinations for s in parent.steps) or any(
        isinstance(e, Branch) and name in e.destinations for e in parent.edges
    )
    after = [e.target for e in parent.edges if isinstance(e, Edge) and e.source == name]
    starts = [e for e in sub.edges if isinstance(e, Edge) and e.source == START]
    if taken or routed_to or after != [END] or len(starts) != 1:
        raise ValueError(
            f"subgraph step {name!r} cannot be inlined: it must be reached by plain edges "
            f"only, followed by END alone, start at one step, and share no step name "
            f"(shared: {sorted(taken)})"
        )


def for_temporal(declaration: GraphDeclaration) -> GraphDeclaration:
    """Return the declaration the Temporal worker builds from `declaration` (module doc)."""
    flat = inline_subgraphs(declaration)
    steps = tuple(
        replace(step, node=in_workflow(step.node), metadata={**step.metadata, **IN_WORKFLOW})
        if step.decision
        else replace(
            step,
            metadata={**step.metadata, **IN_ACTIVITY, **ACTIVITY_METADATA.get(step.name, {})},
        )
        for step in flat.steps
    )
    edges = tuple(
        replace(edge, path=in_workflow(edge.path)) if isinstance(edge, Branch) else edge
        for edge in flat.edges
    )
    return replace(flat, steps=steps, edges=edges)
