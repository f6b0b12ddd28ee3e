"""Start critic-loop runs on Temporal and wait for their results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import uuid4

from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ActivityError, ApplicationError, WorkflowAlreadyStartedError

from critic_loop.errors import ThreadFinished
from critic_loop.results import result_of
from critic_loop.run import RubricLike, loop_input
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from critic_loop.temporal.settings import DEFAULT_TASK_QUEUE, TemporalSettings
from critic_loop.temporal.workflow import WORKFLOW_NAME, RunRequest


class TemporalRunFailed(RuntimeError):
    """A run on Temporal failed: a node's error that no retry could fix, or retries ran out."""

    def __init__(self, thread_id: str, error_type: str, message: str) -> None:
        self.thread_id = thread_id
        self.error_type = error_type
        super().__init__(f"the run of thread {thread_id} failed on Temporal: {message}")


async def connect(settings: TemporalSettings | None = None) -> Client:
    """Connect to Temporal with the data converter workers and clients share."""
    settings = settings or TemporalSettings()
    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    return await Client.connect(
        settings.address,
        namespace=settings.namespace,
        api_key=api_key,
        tls=settings.tls or api_key is not None,
        data_converter=pydantic_data_converter,
    )


def _chosen_fields(context: Context | Mapping[str, Any] | None) -> dict[str, Any]:
    if context is None:
        return {}
    if isinstance(context, Context):
        return context.model_dump(mode="json", exclude_unset=True)
    checked = Context(**dict(context)).model_dump(mode="json")  # refuse bad settings here
    return {key: value for key, value in checked.items() if key in context}


async def start_run(
    client: Client,
    task: str,
    rubric: RubricLike,
    context: Context | Mapping[str, Any] | None = None,
    thread_id: str | None = None,
    *,
    task_queue: str = DEFAULT_TASK_QUEUE,
) -> WorkflowHandle[Any, dict[str, Any]]:
    """Start a run, or join `thread_id`'s running one (`ThreadFinished`: it already finished)."""
    thread = thread_id or uuid4().hex
    request = RunRequest(
        input=loop_input(task, rubric), thread_id=thread, context=_chosen_fields(context)
    )
    try:
        return await client.start_workflow(
            WORKFLOW_NAME,
            request,
            id=f"critic-loop-{thread}",
            task_queue=task_queue,
            result_type=dict,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        )
    except WorkflowAlreadyStartedError as started:
        raise ThreadFinished(
            f"thread {thread} already finished on Temporal; use a new thread id"
        ) from started


def failure_of(thread_id: str, failure: WorkflowFailureError) -> TemporalRunFailed:
    """Return the node error behind a failed run, as a `TemporalRunFailed`."""
    cause: BaseException | None = failure.cause
    while isinstance(cause, ActivityError) and cause.cause is not None:
        cause = cause.cause
    if isinstance(cause, ApplicationError):
        return TemporalRunFailed(thread_id, cause.type or "ApplicationError", cause.message)
    return TemporalRunFailed(thread_id, type(cause).__name__, str(cause or failure))


async def run_on_temporal(
    address: str,
    task: str,
    rubric: RubricLike,
    *,
    namespace: str = "default",
    context: Context | Mapping[str, Any] | None = None,
    thread_id: str | None = None,
    task_queue: str = DEFAULT_TASK_QUEUE,
) -> LoopState:
    """Run the loop on the Temporal workers at `address`, returning or raising as `run_loop` does.

    Raises:
        TemporalRunFailed: the run failed (bad input, a model that kept failing, ...).
        ThreadFinished: the run of `thread_id` already finished.
    """
    client = await connect(TemporalSettings(address=address, namespace=namespace))
    handle = await start_run(client, task, rubric, context, thread_id, task_queue=task_queue)
    thread = handle.id.removeprefix("critic-loop-")
    try:
        values = await handle.result()
    except WorkflowFailureError as failure:
        raise failure_of(thread, failure) from failure
    return result_of(values, context)
