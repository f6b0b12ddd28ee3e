r"""The memory-distillation subgraph: turn a finished run into rules in the store.

    START -> propose_rules --(proposed?)--> consolidate_rules -> END
                           \-------------> END   (skipped or failed)

It has its own input and output schemas. The app graph runs it as the node after
finalize; `graph` (compiled without checkpointer or store) is served on its own in
langgraph.json, so past threads can be distilled on demand.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from critic_loop.nodes.memory.consolidate_rules import consolidate_rules
from critic_loop.nodes.memory.propose_rules import propose_rules
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillInput, DistillOutput, DistillState

DistillGraph = CompiledStateGraph[DistillState, Context, Any, Any]
"""The compiled subgraph. Input: a finished run's state; output: `DistillOutput`."""


def _after_proposal(state: DistillState) -> Literal["consolidate_rules", "__end__"]:
    return "consolidate_rules" if state.proposed is not None else "__end__"


def build_distill_graph(
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
) -> DistillGraph:
    """Compile the distillation subgraph, optionally with a checkpointer and a store."""
    builder = StateGraph(
        DistillState,
        context_schema=Context,
        input_schema=DistillInput,
        output_schema=DistillOutput,
    )
    builder.add_node("propose_rules", propose_rules, input_schema=propose_rules.InputType)
    builder.add_node(
        "consolidate_rules", consolidate_rules, input_schema=consolidate_rules.InputType
    )
    builder.add_edge(START, "propose_rules")
    builder.add_conditional_edges("propose_rules", _after_proposal, ["consolidate_rules", END])
    builder.add_edge("consolidate_rules", END)
    return builder.compile(checkpointer=checkpointer, store=store, name="distill")


graph = build_distill_graph()
"""The subgraph without persistence, for langgraph.json."""
