"""The app graph: recall rules, draft, critique, revise until done, finalize, learn.

`LOOP` declares its steps and edges once; docs/how-it-works.md draws it (a map generated
from the compiled graph, and tested against it). The refinement loop is generate ->
critique -> route; route is a step of its own (see nodes/loop/route.py) so that resumed and
forked threads route by their own settings. Memory wraps the loop: `recall` gives the
worker the scope's rules before its first draft, `record_rule_usage` tells those rules how
the run fared, and the `distill` subgraph turns the run into new rules. Memory steps never
change the loop's outcome; their failures are recorded in `memory_errors`. When they would
have nothing to do, `finalize` ends the run itself and writes the report the distill
subgraph would have written.

`build_graph` is for Python callers, who pass their own checkpointer and store.
`graph` is compiled without either, for `langgraph.json`: the LangGraph server refuses
graphs that bring their own persistence and supplies its own. The Temporal worker builds
its graph from the same `LOOP` (see graphs/temporal_differences.py for how it differs).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore
from typing_extensions import TypedDict

from critic_loop.graphs.declaration import Branch, Edge, GraphDeclaration, Step, build_state_graph
from critic_loop.graphs.distill import DISTILL
from critic_loop.nodes.loop.check_input import SubmittedInput, check_input
from critic_loop.nodes.loop.critique import critique
from critic_loop.nodes.loop.finalize import finalize
from critic_loop.nodes.loop.generate import generate
from critic_loop.nodes.loop.route import first_round, route
from critic_loop.nodes.memory.recall import RecallView, recall
from critic_loop.nodes.memory.record_usage import UsageView, record_rule_usage
from critic_loop.state.context import MAX_ITERATIONS_LIMIT, Context
from critic_loop.state.loop import CriticView, LoopInput, LoopOutput, LoopState, WorkerTurn


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


LOOP = GraphDeclaration(
    name="critic_loop",
    state=LoopState,
    context_schema=Context,
    input_schema=LoopInput,
    output_schema=LoopState,
    steps=(
        Step("check_input", check_input, SubmittedInput),
        Step("recall", recall, RecallView),
        Step("generate", generate, WorkerTurn),  # no rubric in the worker's view
        Step("critique", critique, CriticView),  # no task or worker prompts in the critic's
        Step("route", route, LoopState, destinations=("generate", "finalize"), decision=True),
        Step(
            "finalize",
            finalize,
            LoopState,
            destinations=("record_rule_usage", "generate", END),
            decision=True,
        ),
        Step("record_rule_usage", record_rule_usage, UsageView),
        Step("distill", DISTILL, DistillHandoff),
    ),
    edges=(
        Edge(START, "check_input"),
        Edge("check_input", "recall"),
        # round 1: one Send per candidate, drafted side by side
        Branch("recall", first_round, ("generate",)),
        Edge("generate", "critique"),
        Edge("critique", "route"),
        # route: a Send to generate (revise the best draft, or a fresh sample), or finalize;
        # finalize: the memory steps, END (memory has nothing to do), or back to generate
        # (a thread resumed with settings that allow more rounds)
        Edge("record_rule_usage", "distill"),
        Edge("distill", END),
    ),
)
"""The loop's steps and edges: the one declaration both engines build from."""

LoopGraph = CompiledStateGraph[LoopState, Context, Any, Any]
"""The compiled loop. Input: a mapping shaped like `LoopInput`; output: the state values."""

RECURSION_LIMIT = 3 * MAX_ITERATIONS_LIMIT + 16
"""Graph steps allowed per run: three per round at the largest cap, plus the fixed nodes."""


def build_graph(
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    *,
    output: Literal["state", "result"] = "state",
    declaration: GraphDeclaration = LOOP,
) -> LoopGraph:
    """Compile the app graph, optionally with a checkpointer and a store (for memory).

    `output="state"` makes `invoke` return the whole state (every draft and critique);
    `"result"` returns only `LoopOutput` (how it ended and the answer), as the served graph
    does so that runs, Studio and MCP return the result. `declaration` is the loop's shape
    (`LOOP`, unless a caller changes it).
    """
    builder = build_state_graph(
        declaration, output_schema=LoopOutput if output == "result" else None
    )
    compiled = builder.compile(checkpointer=checkpointer, store=store, name=declaration.name)
    return compiled.with_config(recursion_limit=RECURSION_LIMIT)


@cache
def _state_graph() -> LoopGraph:
    return build_graph()


def loop_graph(checkpointer: BaseCheckpointSaver[str] | None, store: BaseStore | None) -> LoopGraph:
    """Return `build_graph(checkpointer, store)`, compiled only once per process.

    The helpers in `critic_loop.run` call this for every run, so the compiled loop is
    shared and only its checkpointer and store differ. Kept because it shows at a realistic
    latency: compiling takes 8 ms, and the performance benchmark's `latency` scenario
    (50 ms per model call, 5-round runs through `run_loop` on SQLite) measured 1.10x the
    plain loop compiling per run, 1.06x with this (2026-12-01, 2 shared cores).
    """
    return _state_graph().copy(update={"checkpointer": checkpointer, "store": store})


graph = build_graph(output="result")
"""The app graph without persistence, for `langgraph.json` and the LangGraph server.

Its runs return `LoopOutput`; the thread's state holds the whole history.
"""
