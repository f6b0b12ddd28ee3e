"""The app graph: recall rules, draft, critique, revise until done, finalize, learn.

docs/how-it-works.md draws it (generated from the compiled graph, and tested against it).
`graph` is compiled without checkpointer or store, for `langgraph.json` (the LangGraph
server refuses graphs that bring their own persistence); `build_graph` takes them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from critic_loop.graphs.distill import add_distill_subgraph
from critic_loop.nodes.loop.check_input import check_input
from critic_loop.nodes.loop.critique import acritique, critique
from critic_loop.nodes.loop.finalize import finalize
from critic_loop.nodes.loop.generate import agenerate, generate
from critic_loop.nodes.loop.route import first_round, next_turn_or_route, route
from critic_loop.nodes.memory.recall import recall
from critic_loop.nodes.memory.record_usage import record_rule_usage
from critic_loop.nodes.node import PolicedNode, policed_edge
from critic_loop.state.context import MAX_ITERATIONS_LIMIT, Context
from critic_loop.state.loop import LoopOutput, LoopState
from critic_loop.state.run_input import LoopInput

Builder = StateGraph[Any, Any, Any, Any]
NodeBody = Callable[[Any, Runtime[Context]], Any]


def loop_builder(
    new_graph: Callable[..., Builder] = StateGraph,
    *,
    state: type[LoopState] = LoopState,
    output: type[Any] = LoopState,
    add_distill: Callable[[Builder, str], None] = add_distill_subgraph,
    post_critique_hook: NodeBody | None = None,
) -> Builder:
    """Wire the loop into a new `new_graph`; an engine passes what differs for it (Temporal).

    `post_critique_hook` runs after every critique, as `create_react_agent`'s post_model_hook.
    """
    builder = new_graph(state, context_schema=Context, input_schema=LoopInput, output_schema=output)
    builder.add_node("check_input", PolicedNode(check_input))
    builder.add_node("recall", PolicedNode(recall))
    builder.add_node("generate", PolicedNode(generate, agenerate))  # no rubric in the worker's view
    builder.add_node("critique", PolicedNode(critique, acritique))  # no task or worker prompts
    builder.add_node("route", PolicedNode(route))
    builder.add_node("finalize", PolicedNode(finalize))
    builder.add_node("record_rule_usage", PolicedNode(record_rule_usage))
    builder.add_edge(START, "check_input")
    builder.add_edge("check_input", "recall")
    builder.add_conditional_edges("recall", policed_edge(first_round), ["generate"])
    builder.add_edge("generate", "critique")
    graded = "critique"
    if post_critique_hook is not None:
        builder.add_node("post_critique_hook", PolicedNode(post_critique_hook))
        builder.add_edge("critique", "post_critique_hook")
        graded = "post_critique_hook"
    decide = policed_edge(next_turn_or_route, outside_a_run="route")  # a state edit: route decides
    builder.add_conditional_edges(graded, decide, ["generate", "route"])
    add_distill(builder, "record_rule_usage")
    return builder


LoopGraph = CompiledStateGraph[LoopState, Context, Any, Any]
"""The compiled loop. Input: a mapping shaped like `LoopInput`; output: the state values."""

RECURSION_LIMIT = 3 * MAX_ITERATIONS_LIMIT + 16  # at most 3 steps a round (2 unless a person
# reviews it) at the largest cap, + fixed steps (round 1 may take 3 more: its other candidates)


def build_graph(
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    *,
    output: Literal["state", "result"] = "state",
    post_critique_hook: NodeBody | None = None,
) -> LoopGraph:
    """Compile the app graph; `output="result"` returns only `LoopOutput`, as served runs do."""
    builder = loop_builder(
        output=LoopOutput if output == "result" else LoopState,
        post_critique_hook=post_critique_hook,
    )
    compiled = builder.compile(checkpointer=checkpointer, store=store, name="critic_loop")
    return compiled.with_config(recursion_limit=RECURSION_LIMIT)


@cache
def _state_graph() -> LoopGraph:
    return build_graph()


def loop_graph(checkpointer: BaseCheckpointSaver[str] | None, store: BaseStore | None) -> LoopGraph:
    """Return `build_graph(checkpointer, store)`, compiled once per process (`run_loop`'s)."""
    return _state_graph().copy(update={"checkpointer": checkpointer, "store": store})


graph = build_graph(output="result")
"""The app graph without persistence, for `langgraph.json`: runs return `LoopOutput`."""
