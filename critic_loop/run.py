"""Run, resume and fork the loop from Python in one call.

With no checkpointer and no store, runs are kept in the embedded default (one SQLite file,
or PostgreSQL when `CRITIC_LOOP_DATABASE_URL` says so; see `critic_loop.persistence`).
Giving the `thread_id` of an unfinished run resumes it from its last checkpoint: nothing
is lost and the round count continues. `fork_loop` continues a thread from an earlier
round with other settings, leaving the original history intact.

Every step is checkpointed before the next one starts (`durability="sync"`), so a process
that dies mid-run loses at most the step it was in. A run holds its thread's lease while
it writes, so a second run of the same thread is refused (`ThreadBusy`) or waits.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from uuid import uuid4

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore
from langgraph.types import Command, StateSnapshot, StreamMode

from critic_loop.branch_points import graded_checkpoints
from critic_loop.errors import ReviewPending, ThreadFinished
from critic_loop.graphs.app import LoopGraph, loop_graph
from critic_loop.nodes.loop.check_input import validated_input
from critic_loop.nodes.models.discovery import with_available_models
from critic_loop.nodes.models.faults import ModelUnreachable
from critic_loop.persistence import aopen_persistence, open_persistence
from critic_loop.persistence.leases import LocalThreadLeases
from critic_loop.results import result_of
from critic_loop.state.context import Context, as_context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Critique, rounds_done
from critic_loop.state.rubric import CriterionBase, dump_rubric

EventHandler = Callable[[dict[str, Any]], None]
"""Receives each progress event (`draft`, `verdict`) as the run streams it."""


RubricLike = Sequence[CriterionBase | Mapping[str, Any]]
"""Criteria as models or as plain dicts (a `python` check may hold a callable)."""


def loop_input(task: str, rubric: RubricLike) -> dict[str, Any]:
    """Build the graph input for `task` and `rubric` as plain JSON-ready data.

    Callables in `python` checks become references here, before anything is checkpointed.

    Raises:
        InvalidInput: the task or rubric is unusable (one line per problem).
    """
    checked = validated_input({"task": task, "rubric": list(rubric)})
    return {"task": checked.task, "rubric": dump_rubric(checked.rubric)}


def thread_config(thread_id: str | None = None) -> RunnableConfig:
    """Build the run config for `thread_id`, or for a new thread when none is given."""
    return {"configurable": {"thread_id": thread_id or uuid4().hex}}


def invocation(config: RunnableConfig) -> RunnableConfig:
    """Return `config` marked as a new invocation: a fresh `run_id` in its metadata.

    LangGraph copies it into every checkpoint the invocation writes, as LangGraph server
    does with its own runs, so `critic-loop stats` can tell a run's work from its pauses.
    """
    return {**config, "metadata": {**config.get("metadata", {}), "run_id": uuid4().hex}}


def start_from(snapshot: StateSnapshot, thread_id: str, fresh: dict[str, Any]) -> Any:
    """Return what to invoke a thread in `snapshot` with: `fresh` input, or None to resume.

    A thread is finished only when it holds an outcome and has no step left (its memory
    steps done). A thread that was stopped anywhere else resumes, even one whose last
    step's writes were saved without its checkpoint (it shows no next step).

    Raises:
        ThreadFinished: the thread's run already ended.
    """
    if not snapshot.values:
        return fresh
    if snapshot.values.get("outcome") is not None and not snapshot.next:
        raise ThreadFinished(
            f"thread {thread_id} already finished ({snapshot.values['outcome']}); "
            "use a new thread id, or fork_loop to continue it from an earlier round"
        )
    return None


def start_input(graph: LoopGraph, config: RunnableConfig, fresh: dict[str, Any]) -> Any:
    """Return what to invoke the thread of `config` with (see `start_from`)."""
    return start_from(graph.get_state(config), config["configurable"]["thread_id"], fresh)


def round_checkpoint(graph: LoopGraph, thread_id: str, round_number: int) -> RunnableConfig:
    """Return the config of the checkpoint taken right after round `round_number` was graded.

    Invoking the graph from it continues the thread from that round (a fork): the route
    step runs again with the new run's context. The candidates are found from the
    checkpoints' writes (`critic_loop.branch_points`); the newest one whose state shows the
    route step next, with round `round_number` graded, is the one.

    Raises:
        LookupError: the thread has no such round.
    """
    checkpointer = graph.checkpointer
    if not isinstance(checkpointer, BaseCheckpointSaver):
        raise LookupError("forking a thread needs the graph's checkpointer")
    for config in graded_checkpoints(checkpointer, thread_id, round_number):
        snapshot = graph.get_state(config)
        critiques = [Critique.model_validate(c) for c in snapshot.values.get("critiques", [])]
        if snapshot.next == ("route",) and rounds_done(critiques) == round_number:
            return snapshot.config
    raise LookupError(f"thread {thread_id} has no graded round {round_number}")


@contextmanager
def _graph(
    checkpointer: BaseCheckpointSaver[str] | None,
    store: BaseStore | None,
    database: str | Path | None,
    thread_id: str,
    wait_for_thread: bool,
) -> Iterator[LoopGraph]:
    """Open the graph on the caller's savers or the database, holding the thread's lease."""
    if checkpointer is not None or store is not None:
        leases = LocalThreadLeases(checkpointer if checkpointer is not None else store)
        with leases.hold(thread_id, wait=wait_for_thread):
            yield loop_graph(checkpointer, store)
        return
    with (
        open_persistence(database) as persistence,
        persistence.leases.hold(thread_id, wait=wait_for_thread),
    ):
        yield loop_graph(persistence.checkpointer, persistence.store)


@asynccontextmanager
async def _agraph(
    checkpointer: BaseCheckpointSaver[str] | None,
    store: BaseStore | None,
    database: str | Path | None,
    thread_id: str,
    wait_for_thread: bool,
) -> AsyncIterator[LoopGraph]:
    """Async twin of `_graph`."""
    if checkpointer is not None or store is not None:
        leases = LocalThreadLeases(checkpointer if checkpointer is not None else store)
        async with leases.ahold(thread_id, wait=wait_for_thread):
            yield loop_graph(checkpointer, store)
        return
    async with (
        aopen_persistence(database) as persistence,
        persistence.leases.ahold(thread_id, wait=wait_for_thread),
    ):
        yield loop_graph(persistence.checkpointer, persistence.store)


Reviewer = Callable[[dict[str, Any]], dict[str, Any]]
"""Answers a review request (see `critic_loop.nodes.loop.review`) with a person's decision."""


def review_request(snapshot: StateSnapshot) -> dict[str, Any] | None:
    """Return the review request a paused thread waits on, if it waits on one."""
    for task in snapshot.tasks:
        for pending in task.interrupts:
            request: dict[str, Any] = pending.value
            return request
    return None


def _mode(on_event: EventHandler | None) -> StreamMode:
    """Return the stream mode of a run: custom events only when a handler takes them.

    Streaming custom events makes LangGraph hand every step to its thread pool; without
    them a step's single task runs in the calling thread.
    """
    return "custom" if on_event is not None else "updates"


@contextmanager
def resumable(thread_id: str) -> Iterator[None]:
    """Add to a model server's connection failure how to resume the run it stopped."""
    try:
        yield
    except ModelUnreachable as error:
        error.add_note(
            f"Every finished step is saved; resume with run_loop(..., thread_id={thread_id!r})."
        )
        raise


def drive_loop(
    graph: LoopGraph,
    start: Any,
    config: RunnableConfig,
    context: Context,
    on_event: EventHandler | None,
    reviewer: Reviewer | None = None,
) -> LoopState:
    """Stream the thread from `start` (input, or None to resume) and return its result.

    When the run pauses for review, `reviewer` answers and the run goes on.

    Raises:
        ReviewPending: the run paused for review and there is no reviewer.
    """
    thread_id = config["configurable"]["thread_id"]
    head = thread_config(thread_id)  # not the branch point
    while True:
        with resumable(thread_id):
            for event in graph.stream(
                start,
                invocation(config),
                context=context,
                stream_mode=_mode(on_event),
                durability="sync",
            ):
                if on_event is not None:
                    on_event(event)
        snapshot = graph.get_state(head)
        request = review_request(snapshot)
        if request is None:
            return result_of(snapshot.values, context)
        if reviewer is None:
            raise ReviewPending(thread_id, request)
        start, config = Command(resume=reviewer(request)), head


def context_for_run(value: Context | Mapping[str, Any] | None) -> Context:
    """Build the run's `Context`; models the caller left unset are what this machine has.

    The rule every entry point follows (`critic_loop.nodes.models.discovery`): with a
    model server (`base_url`, `OPENAI_BASE_URL`) and no model chosen (by argument or
    `CRITIC_LOOP_*_MODEL`), the model that server serves is used for every role, judged
    one criterion per call; with only a Gemini key, Gemini.

    Raises:
        DiscoveryFailed: the named server could not say which model it serves.
    """
    return with_available_models(as_context(value))


def run_loop(
    task: str,
    rubric: RubricLike,
    *,
    context: Context | Mapping[str, Any] | None = None,
    thread_id: str | None = None,
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    database: str | Path | None = None,
    on_event: EventHandler | None = None,
    reviewer: Reviewer | None = None,
    wait_for_thread: bool = False,
) -> LoopState:
    """Run the loop to its end (or resume the unfinished run of `thread_id`).

    Without `checkpointer` and `store`, the run is kept in `database` (a SQLite path or a
    `postgresql://` URL), else in the embedded default. With `Context.review` set,
    `reviewer` answers each review request (a function of the request returning the
    person's decision, see `critic_loop.nodes.loop.review`).

    The run holds its thread's lease while it runs (`critic_loop.persistence.leases`):
    if another run of the thread holds it, this one raises `ThreadBusy` at once, or
    waits for it with `wait_for_thread=True`.

    Raises:
        LoopExhausted, LoopStalled, VerifierFailed: the run did not pass and the context
            has `on_exhausted="raise"`.
        ThreadFinished: `thread_id` names a run that already ended.
        ThreadBusy: another run is writing to `thread_id` right now.
        ReviewPending: the run paused for review and no `reviewer` was given.
    """
    resolved = context_for_run(context)
    config = thread_config(thread_id)
    thread = config["configurable"]["thread_id"]
    with _graph(checkpointer, store, database, thread, wait_for_thread) as graph:
        start = start_input(graph, config, loop_input(task, rubric))
        return drive_loop(graph, start, config, resolved, on_event, reviewer)


def fork_loop(
    thread_id: str,
    round_number: int,
    *,
    context: Context | Mapping[str, Any] | None = None,
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    database: str | Path | None = None,
    on_event: EventHandler | None = None,
    wait_for_thread: bool = False,
) -> LoopState:
    """Continue `thread_id` from just after round `round_number`, with `context`.

    The thread gets a new branch; the original run's checkpoints stay as they were. The
    fork holds the thread's lease as `run_loop` does.
    """
    resolved = context_for_run(context)
    with _graph(checkpointer, store, database, thread_id, wait_for_thread) as graph:
        branch_point = round_checkpoint(graph, thread_id, round_number)
        return drive_loop(graph, None, branch_point, resolved, on_event)


async def arun_loop(
    task: str,
    rubric: RubricLike,
    *,
    context: Context | Mapping[str, Any] | None = None,
    thread_id: str | None = None,
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
    database: str | Path | None = None,
    on_event: EventHandler | None = None,
    reviewer: Reviewer | None = None,
    wait_for_thread: bool = False,
) -> LoopState:
    """Async twin of `run_loop` (async checkpointer and store)."""
    resolved = context_for_run(context)
    config = thread_config(thread_id)
    thread_id = config["configurable"]["thread_id"]
    async with _agraph(checkpointer, store, database, thread_id, wait_for_thread) as graph:
        start = start_from(await graph.aget_state(config), thread_id, loop_input(task, rubric))
        while True:
            with resumable(thread_id):
                async for event in graph.astream(
                    start,
                    invocation(config),
                    context=resolved,
                    stream_mode=_mode(on_event),
                    durability="sync",
                ):
                    if on_event is not None:
                        on_event(event)
            snapshot = await graph.aget_state(config)
            request = review_request(snapshot)
            if request is None:
                return result_of(snapshot.values, resolved)
            if reviewer is None:
                raise ReviewPending(thread_id, request)
            start = Command(resume=reviewer(request))
