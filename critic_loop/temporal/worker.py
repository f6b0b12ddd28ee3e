"""A Temporal worker for critic-loop runs: workflows and every node's activity, one process."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.langgraph import LangGraphPlugin
from temporalio.worker import Replayer, Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from critic_loop.state.context import Context, as_context
from critic_loop.temporal.activities import WorkerResources, settle_context, worker_resources
from critic_loop.temporal.graph import GRAPH_NAME, build_temporal_graph
from critic_loop.temporal.settings import TemporalSettings, activity_options
from critic_loop.temporal.workflow import CriticLoopWorkflow

# shared with the workflow sandbox, not re-imported per run: the workflow runs only
# critic-loop's pure decisions and LangGraph (which the plugin passes through itself)
PASSED_THROUGH = ("critic_loop", "pydantic", "pydantic_core", "pydantic_settings", "jinja2")


def _workflow_runner() -> SandboxedWorkflowRunner:
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH)
    return SandboxedWorkflowRunner(restrictions=restrictions)


def _plugin(context: Context, settings: TemporalSettings) -> LangGraphPlugin:
    options = activity_options(context, settings)
    return LangGraphPlugin(graphs={GRAPH_NAME: build_temporal_graph(options)})


def build_replayer(
    context: Context | None = None, settings: TemporalSettings | None = None
) -> Replayer:
    """Return a replayer of recorded runs' histories (would a new version take their steps?)."""
    return Replayer(
        workflows=[CriticLoopWorkflow],
        plugins=[_plugin(as_context(context), settings or TemporalSettings())],
        workflow_runner=_workflow_runner(),
        data_converter=pydantic_data_converter,
    )


async def serve(
    client: Client,
    settings: TemporalSettings,
    stop: asyncio.Event,
    *,
    database: str | Path | None = None,
    context: Context | None = None,
    identity: str | None = None,
    on_ready: Callable[[Worker, WorkerResources], None] | None = None,
) -> None:
    """Run a worker until `stop` is set, then let its nodes finish; `context` sets the timeouts."""
    worker_context = as_context(context)
    async with worker_resources(database, worker_context, settings) as resources:
        worker = Worker(
            client,
            task_queue=settings.task_queue,
            workflows=[CriticLoopWorkflow],
            activities=[settle_context],
            plugins=[_plugin(worker_context, settings)],
            workflow_runner=_workflow_runner(),
            identity=identity,
            sticky_queue_schedule_to_start_timeout=timedelta(seconds=settings.sticky_timeout),
            graceful_shutdown_timeout=timedelta(seconds=settings.shutdown_timeout),
        )
        async with worker:
            if on_ready is not None:
                on_ready(worker, resources)
            await stop.wait()
