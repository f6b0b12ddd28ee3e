"""A Temporal worker for critic-loop runs: workflows and every node's activity, one process.

Run as many as you like, on as many machines, against one Temporal service and one
database (PostgreSQL when the workers are on more than one machine; a SQLite file works
for the workers of one machine). Each polls the task queue for both workflow tasks (the
graph's loop) and activity tasks (its nodes).
"""

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
from critic_loop.temporal.activities import settle_context
from critic_loop.temporal.graph import GRAPH_NAME, build_temporal_graph
from critic_loop.temporal.resources import WorkerResources, worker_resources
from critic_loop.temporal.settings import TemporalSettings, activity_options
from critic_loop.temporal.workflow import CriticLoopWorkflow

PASSED_THROUGH = ("critic_loop", "pydantic", "pydantic_core", "pydantic_settings", "jinja2")
"""Modules the workflow sandbox shares with the worker instead of re-importing per run.

The workflow runs only critic-loop's pure decision functions and LangGraph (which the
plugin passes through itself).
"""


def workflow_runner() -> SandboxedWorkflowRunner:
    """Return the workflow sandbox, sharing critic-loop's modules with the worker."""
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH)
    return SandboxedWorkflowRunner(restrictions=restrictions)


def plugin_for(context: Context, settings: TemporalSettings) -> LangGraphPlugin:
    """Return the LangGraph plugin with a fresh graph (the plugin changes the graph it gets)."""
    options = activity_options(context, settings)
    return LangGraphPlugin(graphs={GRAPH_NAME: build_temporal_graph(options)})


def build_worker(
    client: Client,
    settings: TemporalSettings,
    context: Context,
    *,
    identity: str | None = None,
) -> Worker:
    """Return a worker for `settings.task_queue`, its activity options set from `context`."""
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[CriticLoopWorkflow],
        activities=[settle_context],
        plugins=[plugin_for(context, settings)],
        workflow_runner=workflow_runner(),
        identity=identity,
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=settings.sticky_timeout),
        graceful_shutdown_timeout=timedelta(seconds=settings.shutdown_timeout),
    )


def build_replayer(
    context: Context | None = None, settings: TemporalSettings | None = None
) -> Replayer:
    """Return a replayer of recorded runs' histories.

    Replaying the histories of earlier runs with a new version of critic-loop shows, before
    its workers are deployed, whether it would take the steps those runs took (a change
    that would not is a nondeterminism error for runs still in flight).
    """
    return Replayer(
        workflows=[CriticLoopWorkflow],
        plugins=[plugin_for(context or as_context(None), settings or TemporalSettings())],
        workflow_runner=workflow_runner(),
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
    """Run a worker on `client` until `stop` is set, then let its running nodes finish.

    `context` (default: the `CRITIC_LOOP_*` environment) sets the activity timeouts;
    `database` (default: `CRITIC_LOOP_DATABASE_URL`, else the SQLite file) holds the rules.
    """
    worker_context = context if context is not None else as_context(None)
    async with worker_resources(database, worker_context, settings) as resources:
        worker = build_worker(client, settings, worker_context, identity=identity)
        async with worker:
            if on_ready is not None:
                on_ready(worker, resources)
            await stop.wait()
