"""The Temporal workflow that runs one critic-loop run to its end (no checkpointer needed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from temporalio.langgraph import graph

    from critic_loop.graphs.app import RECURSION_LIMIT
    from critic_loop.temporal.activities import SETTLE_CONTEXT
    from critic_loop.temporal.graph import GRAPH_NAME

WORKFLOW_NAME = "critic_loop"
SETTLE_OPTIONS: dict[str, Any] = {  # no I/O beyond the environment
    "start_to_close_timeout": timedelta(seconds=60),
    "retry_policy": RetryPolicy(maximum_attempts=5, maximum_interval=timedelta(seconds=10)),
}


@dataclass
class RunRequest:
    """A run, as a client starts it."""

    input: dict[str, Any]  # the task and the rubric as plain JSON
    thread_id: str  # rule provenance and usage records name it
    context: dict[str, Any] = field(default_factory=dict)  # the fields the client chose


@workflow.defn(name=WORKFLOW_NAME)
class CriticLoopWorkflow:
    """Run the loop (recall, draft, critique, revise, finalize, distill) to its outcome."""

    @workflow.run
    async def run(self, request: RunRequest) -> dict[str, Any]:
        """Return the run's final state values, as `graph.ainvoke` returns them in-process."""
        context = await workflow.execute_activity(
            SETTLE_CONTEXT, request.context, result_type=dict, **SETTLE_OPTIONS
        )
        app = graph(GRAPH_NAME).compile(name=GRAPH_NAME)
        values: dict[str, Any] = await app.ainvoke(
            request.input,
            {
                "configurable": {"thread_id": request.thread_id},
                "recursion_limit": RECURSION_LIMIT,
            },
            context=context,
        )
        return values  # the graph's output schema is the loop's state, as in process
