r"""The loop as a graph for Temporal: the app graph's shape, with the plugin's node options.

    START -> check_input -> recall =(Send x candidates)=> generate -> critique -> route
    route =(Send: revise the best draft, or a fresh sample)=> generate
    route --> finalize -> record_rule_usage -> propose_rules --> consolidate_rules -> END
                                                             \--> END

It is the in-process app graph (`critic_loop.graphs.app`) step for step, with two
differences the plugin requires: distillation's two steps are nodes of this graph rather
than a subgraph, and every node says where it runs. I/O nodes (`critic_loop.temporal.
activities`) run as activities, with the options of `settings.activity_options`; the
decisions between them (`critic_loop.temporal.routing`) run in the workflow.

The plugin changes the graph it is given (it swaps node functions and strips the options
from their metadata), so every plugin needs a graph of its own: call
`build_temporal_graph` for each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.graph import END, START, StateGraph

from critic_loop.nodes.loop.check_input import SubmittedInput
from critic_loop.nodes.memory.recall import RecallView
from critic_loop.nodes.memory.record_usage import UsageView
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillState
from critic_loop.state.loop import CriticView, LoopInput, WorkerTurn
from critic_loop.temporal import activities, routing
from critic_loop.temporal.loop_state import TemporalLoopState

GRAPH_NAME = "critic_loop"
"""The graph's name with the plugin; its activities are named `critic_loop.<node>`."""

IN_WORKFLOW: dict[str, Any] = {"execute_in": "workflow"}


def build_temporal_graph(
    options: Mapping[str, Mapping[str, Any]],
) -> StateGraph[TemporalLoopState, Context, LoopInput, TemporalLoopState]:
    """Build a fresh graph, each I/O node with its activity `options` (by node name)."""

    def activity(node: str) -> dict[str, Any]:
        return {"execute_in": "activity", **options[node]}

    def generate_summary(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        turn = WorkerTurn.model_validate(args[0])  # sent as plain JSON (`to_worker`)
        return f"round {turn.round}, candidate {turn.candidate}: {turn.mode}"

    builder = StateGraph(TemporalLoopState, context_schema=Context, input_schema=LoopInput)
    builder.add_node(
        "check_input",
        activities.check_input,
        input_schema=SubmittedInput,
        metadata=activity("check_input"),
    )
    builder.add_node(
        "recall", activities.recall, input_schema=RecallView, metadata=activity("recall")
    )
    builder.add_node(
        "generate",
        activities.generate,
        input_schema=WorkerTurn,
        metadata={**activity("generate"), "summary_fn": generate_summary},
    )
    builder.add_node(
        "critique", activities.critique, input_schema=CriticView, metadata=activity("critique")
    )
    builder.add_node(
        "route", routing.route, destinations=("generate", "finalize"), metadata=IN_WORKFLOW
    )
    builder.add_node(
        "finalize",
        routing.finalize,
        destinations=("record_rule_usage", "generate"),
        metadata=IN_WORKFLOW,
    )
    builder.add_node(
        "record_rule_usage",
        activities.record_rule_usage,
        input_schema=UsageView,
        metadata=activity("record_rule_usage"),
    )
    builder.add_node(
        "propose_rules",
        activities.propose_rules,
        input_schema=DistillState,
        metadata=activity("propose_rules"),
    )
    builder.add_node(
        "consolidate_rules",
        activities.consolidate_rules,
        input_schema=DistillState,
        metadata=activity("consolidate_rules"),
    )
    builder.add_edge(START, "check_input")
    builder.add_edge("check_input", "recall")
    builder.add_conditional_edges("recall", routing.first_round, ["generate"])
    builder.add_edge("generate", "critique")
    builder.add_edge("critique", "route")
    builder.add_edge("record_rule_usage", "propose_rules")
    builder.add_conditional_edges(
        "propose_rules", routing.after_proposal, ["consolidate_rules", END]
    )
    builder.add_edge("consolidate_rules", END)
    return builder
