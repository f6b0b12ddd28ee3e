"""A graph's shape, declared once as data: its steps and the edges between them.

A `GraphDeclaration` names each step (its node, the schema the node reads, and where a
step that routes with `Command` may go) and each edge. `build_state_graph` is the one
place that turns a declaration into a LangGraph `StateGraph`: the in-process graphs
(`graphs/app.py`, `graphs/distill.py`) compile what it builds, and the Temporal worker
builds its graph with it too, from the same declaration after the changes that
`graphs/temporal_differences.py` declares.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langgraph.graph import StateGraph

DURABILITY_WARNING = "`durability` has no effect when no checkpointer is present"
"""LangGraph's warning when `subgraph_step` sets durability for its uncheckpointed graph."""

warnings.filterwarnings(
    "ignore", message=DURABILITY_WARNING, category=UserWarning, module=r"langgraph\.pregel\."
)


@dataclass(frozen=True)
class Step:
    """One node of a graph."""

    name: str
    node: Any
    """The node: a function or a `Runnable` of (state, runtime), or a `GraphDeclaration`
    (a subgraph, compiled as one node in process)."""
    input_schema: type[Any]
    """The part of the state the node reads (its view)."""
    destinations: tuple[str, ...] = ()
    """Where the node may send the run with `Command(goto=...)`; empty for plain nodes."""
    decision: bool = False
    """True for a pure decision: it reads the state and the run's context, and does no I/O."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """The node's LangGraph metadata (an engine's options for it)."""


@dataclass(frozen=True)
class Edge:
    """The run goes from `source` to `target` (`START` and `END` included)."""

    source: str
    target: str


@dataclass(frozen=True)
class Branch:
    """A conditional edge: `path` (a pure decision) chooses among `destinations`.

    It may return a destination's name, or `Send`s to it.
    """

    source: str
    path: Callable[..., Any]
    destinations: tuple[str, ...]


@dataclass(frozen=True)
class GraphDeclaration:
    """A graph: its schemas, its steps, and the edges between them."""

    name: str
    state: type[Any]
    context_schema: type[Any]
    input_schema: type[Any]
    output_schema: type[Any]
    steps: tuple[Step, ...]
    edges: tuple[Edge | Branch, ...]

    def step(self, name: str) -> Step:
        """Return the step called `name`.

        Raises:
            KeyError: there is none.
        """
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(f"{self.name} has no step {name!r}")


def node_of(step: Step) -> Any:
    """Return what LangGraph runs for `step`: its node, or its subgraph (see `subgraph_step`)."""
    if isinstance(step.node, GraphDeclaration):
        return subgraph_step(step.node)
    return step.node


def subgraph_step(declaration: GraphDeclaration) -> Runnable[Any, Any]:
    """Return a subgraph as one step of its parent, with no checkpoints of its own.

    A checkpointed subgraph stores its input twice more (in its first checkpoint and in
    its input's writes): for the distill step, the run's drafts and critiques, which the
    parent already keeps. Without checkpoints, a step interrupted there runs again from
    its start. The subgraph is compiled with `checkpointer=False` and invoked with
    `durability="exit"`: LangGraph 1.2 otherwise waits, under the parent's
    `durability="sync"`, for a checkpoint write a graph without a checkpointer never
    starts (an AttributeError). LangGraph then warns that durability means nothing
    without a checkpointer; this module silences that one warning (`DURABILITY_WARNING`).
    A subgraph with no checkpointer is not one LangGraph draws inside its parent
    (`get_graph(xray=True)`), so the parent's map shows it as one step.
    """
    inner = build_state_graph(declaration).compile(name=declaration.name, checkpointer=False)

    def run(handoff: Any, config: RunnableConfig) -> Any:
        return inner.invoke(handoff, config, durability="exit")

    async def arun(handoff: Any, config: RunnableConfig) -> Any:
        return await inner.ainvoke(handoff, config, durability="exit")

    return RunnableLambda(run, afunc=arun, name=declaration.name)


def build_state_graph(
    declaration: GraphDeclaration, *, output_schema: type[Any] | None = None
) -> StateGraph[Any, Any, Any, Any]:
    """Build the `StateGraph` that `declaration` describes (its output: `output_schema`)."""
    builder: StateGraph[Any, Any, Any, Any] = StateGraph(
        declaration.state,
        context_schema=declaration.context_schema,
        input_schema=declaration.input_schema,
        output_schema=output_schema or declaration.output_schema,
    )
    for step in declaration.steps:
        builder.add_node(
            step.name,
            node_of(step),
            input_schema=step.input_schema,
            destinations=step.destinations or None,
            metadata=dict(step.metadata) or None,
        )
    for edge in declaration.edges:
        if isinstance(edge, Branch):
            builder.add_conditional_edges(edge.source, edge.path, list(edge.destinations))
        else:
            builder.add_edge(edge.source, edge.target)
    return builder
