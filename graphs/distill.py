"""The memory-distillation subgraph: turn a finished run into rules in the store.

The app graph runs it as its `distill` step after finalize; `graph` is served on its own in
langgraph.json, so past threads can be distilled on demand.
"""

from __future__ import annotations

import warnings
from functools import cache
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from typing_extensions import TypedDict

from critic_loop.nodes.memory.consolidate_rules import consolidate_rules
from critic_loop.nodes.memory.propose_rules import apropose_rules, propose_rules
from critic_loop.nodes.node import PolicedNode
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillInput, DistillOutput, DistillState

DistillGraph = CompiledStateGraph[DistillState, Context, Any, Any]
"""The compiled subgraph. Input: a finished run's state; output: `DistillOutput`."""


def after_proposal(state: DistillState) -> Literal["consolidate_rules", "__end__"]:
    """Consolidate the proposed rule operations, or end (distillation skipped or failed)."""
    return "consolidate_rules" if state.proposed is not None else "__end__"


def add_distill_steps(builder: StateGraph[Any, Any, Any, Any], after: str) -> None:
    """Add distillation's steps to `builder`, run after its step `after` (or `START`)."""
    builder.add_node("propose_rules", PolicedNode(propose_rules, apropose_rules))
    builder.add_node("consolidate_rules", PolicedNode(consolidate_rules))
    builder.add_edge(after, "propose_rules")
    builder.add_conditional_edges("propose_rules", after_proposal, ["consolidate_rules", END])
    builder.add_edge("consolidate_rules", END)


def build_distill_graph(
    checkpointer: BaseCheckpointSaver[str] | bool | None = None,
    store: BaseStore | None = None,
) -> DistillGraph:
    """Compile the distillation subgraph, optionally with a checkpointer and a store."""
    builder = StateGraph(
        DistillState, context_schema=Context, input_schema=DistillInput, output_schema=DistillOutput
    )
    add_distill_steps(builder, START)
    return builder.compile(checkpointer=checkpointer, store=store, name="distill")


class DistillHandoff(TypedDict):
    """The finished run handed to distill, as JSON (models would be stored as Python types)."""

    task: str
    rubric: list[dict[str, Any]]
    drafts: list[dict[str, Any]]
    critiques: list[dict[str, Any]]
    outcome: str | None


UNSAVED = "`durability` has no effect when no checkpointer is present"  # `distill`'s graph
warnings.filterwarnings("ignore", message=UNSAVED, category=UserWarning, module=r"langgraph\.")


@cache
def _unsaved() -> DistillGraph:
    return build_distill_graph(checkpointer=False)


def distill(handoff: DistillHandoff, runtime: Runtime[Context]) -> Any:
    """Run the subgraph on the finished run, without checkpoints (the history twice more).

    Under the parent's `durability="sync"` it would wait for a checkpoint never written.
    """
    return _unsaved().invoke(handoff, durability="exit")


async def _adistill(handoff: DistillHandoff, runtime: Runtime[Context]) -> Any:
    return await _unsaved().ainvoke(handoff, durability="exit")


def add_distill_subgraph(builder: StateGraph[Any, Any, Any, Any], after: str) -> None:
    """Add distillation to `builder` as one step, `distill`, run after its step `after`."""
    builder.add_node("distill", PolicedNode(distill, _adistill))
    builder.add_edge(after, "distill")
    builder.add_edge("distill", END)


graph = build_distill_graph()
"""The subgraph without persistence, for langgraph.json."""
