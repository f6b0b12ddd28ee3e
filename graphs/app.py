r"""The app graph: recall rules, draft, critique, revise until done, finalize, learn.

    START -> check_input -> recall =(Send x candidates)=> generate -> critique -> route
    route =(Send: revise the best draft, or a fresh sample)=> generate
    route --> finalize -> record_rule_usage -> distill (subgraph) -> END
              finalize --> END   (memory has nothing to do: off, no store, or not completed)

The refinement loop is generate -> critique -> route; route is a step of its own (see
nodes/route.py) so that resumed and forked threads route by their own settings. Memory
wraps the loop: `recall` gives the worker the scope's rules before its first draft,
`record_rule_usage` tells those rules how the run fared, and the `distill` subgraph turns
the run into new rules. Memory steps never change the loop's outcome; their failures are
recorded in `memory_errors`. When they would have nothing to do, `finalize` ends the run
itself and writes the report the distill subgraph would have written.

`build_graph` is for Python callers, who pass their own checkpointer and store.
`graph` is compiled without either, for `langgraph.json`: the LangGraph server refuses
graphs that bring their own persistence and supplies its own.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import get_runtime
from langgraph.store.base import BaseStore
from langgraph.types import Send
from typing_extensions import TypedDict

from critic_loop.graphs.distill import build_distill_graph
from critic_loop.nodes.loop.check_input import check_input
from critic_loop.nodes.loop.critique import critique
from critic_loop.nodes.loop.finalize import finalize
from critic_loop.nodes.loop.generate import generate
from critic_loop.nodes.loop.route import route
from critic_loop.nodes.loop.worker_turns import first_turns, to_worker
from critic_loop.nodes.memory.recall import recall
from critic_loop.nodes.memory.record_usage import record_rule_usage
from critic_loop.nodes.operator_policy import context_of
from critic_loop.state.context import MAX_ITERATIONS_LIMIT, Context
from critic_loop.state.loop import LoopInput, LoopOutput, LoopState


class DistillHandoff(TypedDict):
    """What the loop hands the distill subgraph: the finished run, as its channels' JSON.

    With the subgraph's own pydantic input schema the loop would hand it models, and the
    subgraph's checkpoints would store them as Python types rather than as data.
    """

    task: str
    rubric: list[dict[str, Any]]
    drafts: list[dict[str, Any]]
    critiques: list[dict[str, Any]]
    outcome: str | None


LoopGraph = CompiledStateGraph[LoopState, Context, Any, Any]
"""The compiled loop. Input: a mapping shaped like `LoopInput`; output: the state values."""

RECURSION_LIMIT = 3 * MAX_ITERATIONS_LIMIT + 16
"""Graph steps allowed per run: three per round at the largest cap, plus the fixed nodes."""


def first_round(state: LoopState) -> list[Send]:
    """Send the worker round 1's turns: one per candidate, side by side."""
    context = context_of(get_runtime())
    return [to_worker(turn) for turn in first_turns(state.task, state.recalled_rules, context)]


def build_graph(
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    *,
    output: Literal["state", "result"] = "state",
) -> LoopGraph:
    """Compile the app graph, optionally with a checkpointer and a store (for memory).

    `output="state"` makes `invoke` return the whole state (every draft and critique);
    `"result"` returns only `LoopOutput` (how it ended and the answer), as the served graph
    does so that runs, Studio and MCP return the result.
    """
    builder = StateGraph(
        LoopState,
        context_schema=Context,
        input_schema=LoopInput,
        output_schema=LoopOutput if output == "result" else LoopState,
    )
    # plain functions declare their input schema and destinations in their signatures;
    # sync+async nodes (RunnableLambda) carry it as InputType, from their logic's signature
    builder.add_node("check_input", check_input)
    builder.add_node("recall", recall, input_schema=recall.InputType)
    builder.add_node("generate", generate, input_schema=generate.InputType)
    builder.add_node("critique", critique, input_schema=critique.InputType)
    builder.add_node("route", route)
    builder.add_node("finalize", finalize)
    builder.add_node(
        "record_rule_usage", record_rule_usage, input_schema=record_rule_usage.InputType
    )
    builder.add_node("distill", build_distill_graph(), input_schema=DistillHandoff)
    builder.add_edge(START, "check_input")
    builder.add_edge("check_input", "recall")
    builder.add_conditional_edges("recall", first_round, ["generate"])
    builder.add_edge("generate", "critique")
    builder.add_edge("critique", "route")
    builder.add_edge("record_rule_usage", "distill")
    builder.add_edge("distill", END)
    compiled = builder.compile(checkpointer=checkpointer, store=store, name="critic_loop")
    return compiled.with_config(recursion_limit=RECURSION_LIMIT)


@cache
def _state_graph() -> LoopGraph:
    return build_graph()


def loop_graph(checkpointer: BaseCheckpointSaver[str] | None, store: BaseStore | None) -> LoopGraph:
    """Return `build_graph(checkpointer, store)`, compiled only once per process.

    Compiling costs milliseconds; the helpers in `critic_loop.run` call this for every run,
    so the compiled loop is shared and only its checkpointer and store differ.
    """
    return _state_graph().copy(update={"checkpointer": checkpointer, "store": store})


graph = build_graph(output="result")
"""The app graph without persistence, for `langgraph.json` and the LangGraph server.

Its runs return `LoopOutput`; the thread's state holds the whole history.
"""
