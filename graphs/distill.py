"""The memory-distillation subgraph: turn a finished run into rules in the store.

It has its own input and output schemas. The app graph runs it as the node after
finalize; `graph` (compiled without checkpointer or store) is served on its own in
langgraph.json, so past threads can be distilled on demand. docs/how-it-works.md draws it.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from critic_loop.graphs.declaration import Branch, Edge, GraphDeclaration, Step, build_state_graph
from critic_loop.nodes.memory.consolidate_rules import consolidate_rules
from critic_loop.nodes.memory.propose_rules import propose_rules
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillInput, DistillOutput, DistillState

DistillGraph = CompiledStateGraph[DistillState, Context, Any, Any]
"""The compiled subgraph. Input: a finished run's state; output: `DistillOutput`."""


def after_proposal(state: DistillState) -> Literal["consolidate_rules", "__end__"]:
    """Consolidate the proposed rule operations, or end (distillation skipped or failed)."""
    return "consolidate_rules" if state.proposed is not None else "__end__"


DISTILL = GraphDeclaration(
    name="distill",
    state=DistillState,
    context_schema=Context,
    input_schema=DistillInput,
    output_schema=DistillOutput,
    steps=(
        Step("propose_rules", propose_rules, DistillState),
        Step("consolidate_rules", consolidate_rules, DistillState),
    ),
    edges=(
        Edge(START, "propose_rules"),
        # skipped (memory off, no store, the run did not complete) or failed: nothing to apply
        Branch("propose_rules", after_proposal, ("consolidate_rules", END)),
        Edge("consolidate_rules", END),
    ),
)
"""The subgraph's steps and edges: the one declaration of its shape."""


def build_distill_graph(
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
) -> DistillGraph:
    """Compile the distillation subgraph, optionally with a checkpointer and a store."""
    builder = build_state_graph(DISTILL)
    return builder.compile(checkpointer=checkpointer, store=store, name=DISTILL.name)


graph = build_distill_graph()
"""The subgraph without persistence, for langgraph.json."""
