"""Run, resume and fork the loop from Python in one call, each step saved before the next."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack, cast
from uuid import uuid4

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore
from langgraph.types import Command, StateSnapshot

from critic_loop.errors import ReviewPending, ThreadFinished
from critic_loop.graphs.app import LoopGraph, loop_graph
from critic_loop.nodes.models.discovery import with_available_models
from critic_loop.nodes.models.gateway import ModelUnreachable
from critic_loop.persistence import aopen_persistence, open_persistence
from critic_loop.persistence.leases import ThreadLeases, local_leases
from critic_loop.results import result_of
from critic_loop.state.context import Context, as_context
from critic_loop.state.history import highest_round, listed_checkpoints
from critic_loop.state.loop import LoopState
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import Critique, rounds_done
from critic_loop.state.rubric import CriterionBase, dump_rubric
from critic_loop.state.run_input import validated_input
from critic_loop.thread_settings import settings_metadata

EventHandler = Callable[[dict[str, Any]], None]  # told each progress event (draft, verdict)
RubricLike = Sequence[CriterionBase | Mapping[str, Any]]  # a python check may hold a callable
Reviewer = Callable[[dict[str, Any]], dict[str, Any]]  # answers a review (nodes.loop.review)


@dataclass(frozen=True)
class RunStart:
    """What a run is about to do, told to `on_start` just before its first step."""

    thread_id: str
    resuming: bool  # an unfinished run goes on, with the thread's own task and rubric
    input_differs: bool  # resuming, and the task or rubric given are not the thread's own
    location: str | None  # the database, or None with the caller's own savers


StartHandler = Callable[[RunStart], None]  # told once the thread's lease is held


def loop_input(task: str, rubric: RubricLike) -> dict[str, Any]:
    """Build the graph input for `task` and `rubric` as plain JSON (callables as references).

    Raises:
        InvalidInput: the task or rubric is unusable (one line per problem).
    """
    checked = validated_input({"task": task, "rubric": list(rubric)})
    return {"task": checked.task, "rubric": dump_rubric(checked.rubric)}


def thread_config(thread_id: str | None = None) -> RunnableConfig:
    """Build the run config for `thread_id`, or for a new thread when none is given."""
    return {"configurable": {"thread_id": thread_id or uuid4().hex}}


def context_for_run(value: Context | Mapping[str, Any] | None) -> Context:
    """Build the run's `Context`; models the caller left unset are what this machine has."""
    return with_available_models(as_context(value))


# Where a thread can be forked: the checkpoints taken right after a round was graded. Reading
# every state would replay the thread's writes each time (time in the square of its length);
# this lists its checkpoints once: a checkpoint's graded round is the highest among the
# critiques written before it on its line (or stored in it whole).
CRITIQUES = "critiques"


@dataclass(frozen=True)
class _Point:
    config: RunnableConfig
    parent: str | None
    stored: int  # the highest round among critiques it stores whole (old threads)
    written: int  # the highest round among critiques the steps taken from it wrote (-1: none)


def _point(item: Any) -> _Point:
    stored = item.checkpoint.get("channel_values", {}).get(CRITIQUES)
    stored = getattr(stored, "value", stored)  # a snapshot of the channel holds its value
    written = [value for _, channel, value in item.pending_writes or [] if channel == CRITIQUES]
    parent = item.parent_config["configurable"].get("checkpoint_id") if item.parent_config else None
    return _Point(
        item.config,
        str(parent) if parent else None,
        highest_round(stored if isinstance(stored, list) else []),
        max((highest_round(value) for value in written), default=-1),
    )


def _graded_checkpoints(
    checkpointer: BaseCheckpointSaver[Any], thread_id: str, round_number: int
) -> Iterator[RunnableConfig]:  # newest first, on every branch of the thread
    config: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    with listed_checkpoints(checkpointer, config) as listing:
        points = {
            str(item.config["configurable"]["checkpoint_id"]): _point(item) for item in listing
        }
    graded: dict[str, int] = {}
    for checkpoint_id in sorted(points):  # oldest first: a parent before its children
        point = points[checkpoint_id]
        parent = points.get(point.parent or "")
        made = parent.written if parent is not None else 0
        graded[checkpoint_id] = max(graded.get(point.parent or "", 0), point.stored, made)
    for checkpoint_id in sorted(points, reverse=True):
        point = points[checkpoint_id]
        parent = points.get(point.parent or "")
        if parent is not None and parent.written >= 0 and graded[checkpoint_id] == round_number:
            yield point.config


def _round_checkpoint(graph: LoopGraph, run: _Run, round_number: int) -> RunnableConfig:
    # a branch from the checkpoint right after the round was graded, whose next step is route
    # (a turn the edge after grading had sent is dropped): the fork decides by its own context
    checkpointer = graph.checkpointer
    if not isinstance(checkpointer, BaseCheckpointSaver):
        raise LookupError("forking a thread needs the graph's checkpointer")
    for config in _graded_checkpoints(checkpointer, run.thread_id, round_number):
        snapshot = graph.get_state(config)
        critiques = [Critique.model_validate(c) for c in snapshot.values.get("critiques", [])]
        graded = snapshot.next and set(snapshot.next) <= {"generate", "route"}
        if graded and rounds_done(critiques) == round_number:
            branch = _stream_options(snapshot.config, run)["config"]  # with the fork's settings
            return graph.update_state(branch, Command(goto="route"), as_node="route")
    raise LookupError(f"thread {run.thread_id} has no graded round {round_number}")


class ForkOptions(TypedDict, total=False):
    """The keyword options of `fork_loop`, `run_loop` and `arun_loop`."""

    context: Context | Mapping[str, Any] | None
    checkpointer: BaseCheckpointSaver[str] | None
    store: BaseStore | None
    database: str | Path | None
    on_event: EventHandler | None
    wait_for_thread: bool


class RunOptions(ForkOptions, total=False):
    """The keyword options of `run_loop` and `arun_loop`."""

    thread_id: str | None
    reviewer: Reviewer | None
    on_start: StartHandler | None


@dataclass(frozen=True)
class _Run:
    thread_id: str
    context: Context
    fresh: dict[str, Any] | None
    options: RunOptions

    @property
    def config(self) -> RunnableConfig:
        return thread_config(self.thread_id)

    @property
    def wait(self) -> bool:
        return self.options.get("wait_for_thread", False)


def _checked(options: Mapping[str, Any], allowed: Any, caller: str) -> None:
    # `**options: Unpack[...]` is not checked when the code runs: a misspelt keyword would
    # otherwise be ignored (say, `db=` running in the default database)
    unknown = sorted(set(options) - allowed.__required_keys__ - allowed.__optional_keys__)
    if unknown:
        raise TypeError(f"{caller}() got unexpected keyword argument(s): {', '.join(unknown)}")


def _run(task: str, rubric: RubricLike, options: RunOptions, caller: str) -> _Run:
    _checked(options, RunOptions, caller)
    context = context_for_run(options.get("context"))
    thread_id = options.get("thread_id") or uuid4().hex
    return _Run(thread_id, context, loop_input(task, rubric), options)


def _callers_graph(run: _Run) -> tuple[LoopGraph, ThreadLeases] | None:
    checkpointer, store = run.options.get("checkpointer"), run.options.get("store")
    if checkpointer is None and store is None:
        return None
    leases = local_leases(checkpointer if checkpointer is not None else store)
    return loop_graph(checkpointer, store), leases


@contextmanager
def _graph(run: _Run) -> Iterator[tuple[LoopGraph, str | None]]:
    """Open the graph on the caller's savers (location None) or the database, holding the lease."""
    if (callers := _callers_graph(run)) is not None:
        with callers[1].hold(run.thread_id, wait=run.wait):
            yield callers[0], None
        return
    with (
        open_persistence(run.options.get("database")) as persistence,
        persistence.leases.hold(run.thread_id, wait=run.wait),
    ):
        yield loop_graph(persistence.checkpointer, persistence.store), persistence.location


@asynccontextmanager
async def _agraph(run: _Run) -> AsyncIterator[tuple[LoopGraph, str | None]]:
    if (callers := _callers_graph(run)) is not None:
        async with callers[1].ahold(run.thread_id, wait=run.wait):
            yield callers[0], None
        return
    async with (
        aopen_persistence(run.options.get("database")) as persistence,
        persistence.leases.ahold(run.thread_id, wait=run.wait),
    ):
        yield loop_graph(persistence.checkpointer, persistence.store), persistence.location


@contextmanager
def _resumable(thread_id: str) -> Iterator[None]:
    try:
        yield
    except ModelUnreachable as error:
        error.add_note(
            f"Every finished step is saved; resume with run_loop(..., thread_id={thread_id!r})."
        )
        raise


def _stream_options(config: RunnableConfig, run: _Run) -> dict[str, Any]:
    # a fresh run_id and the run's settings, copied into every checkpoint the invocation
    # writes (as LangGraph server does), so `critic-loop stats` can tell a run's work from
    # its pauses and `critic-loop run --thread-id` resumes with the thread's settings
    by_client = operator_settings().untrusted_input
    metadata = {"run_id": uuid4().hex, **settings_metadata(run.context, by_client)}
    # the state and a pause as `invoke` reads them (no replay of the thread's writes at the
    # end); custom events only for a handler: they make LangGraph run each step in its pool
    mode = ["updates", "values", *(["custom"] if run.options.get("on_event") else [])]
    invocation: RunnableConfig = {**config, "metadata": {**config.get("metadata", {}), **metadata}}
    return {"config": invocation, "context": run.context, "stream_mode": mode, "durability": "sync"}


def _keep(seen: dict[str, Any], mode: str, chunk: Any, on_event: EventHandler) -> None:
    """Keep the state after the stream's last step and a pause's request, as `invoke` does."""
    if mode == "custom":
        on_event(chunk)
    elif mode == "values":
        seen[mode] = chunk
    elif "__interrupt__" in chunk:
        seen.setdefault(mode, chunk)  # the first pause, as the thread's state lists them


def _as_seen(snapshot: StateSnapshot) -> dict[str, Any]:  # for a stream that ran no step
    return {"values": snapshot.values, "updates": {"__interrupt__": snapshot.interrupts}}


def _next_input(seen: dict[str, Any], run: _Run) -> LoopState | Command[Any]:
    """Return the run's result, or a reviewer's answer to resume it with (else `ReviewPending`)."""
    waiting = seen.get("updates", {}).get("__interrupt__")
    if not waiting:
        return result_of(seen.get("values") or {}, run.context)
    request = waiting[0].value
    reviewer = run.options.get("reviewer")
    if reviewer is None:
        raise ReviewPending(run.thread_id, request)
    return Command(resume=reviewer(request))


def _start(snapshot: StateSnapshot, run: _Run, location: str | None) -> dict[str, Any] | None:
    """Return the input that starts the thread, or None to resume its unfinished run.

    Finished means an outcome and no step left (memory steps done) but a refused second run's
    `check_input`; anything else resumes, even a last step whose writes were saved without its
    checkpoint (no next step shown).
    """
    kept, fresh, on_start = snapshot.values, run.fresh or {}, run.options.get("on_start")
    left = {task.name for task in snapshot.tasks} - {"check_input"}  # `next` omits written steps
    if kept.get("outcome") is not None and not left:
        raise ThreadFinished(
            f"thread {run.thread_id} already finished ({kept['outcome']}); "
            "use a new thread id, or fork_loop to continue it from an earlier round"
        )
    if on_start is not None:
        differs = bool(kept) and (kept["task"], kept["rubric"]) != (fresh["task"], fresh["rubric"])
        on_start(RunStart(run.thread_id, bool(kept), differs, location))
    return None if kept else run.fresh


def _drive(graph: LoopGraph, start: Any, config: RunnableConfig, run: _Run) -> LoopState:
    """Stream the thread from `start` (input, or None to resume) to its result."""
    on_event = run.options.get("on_event") or (lambda event: None)
    while True:
        seen: dict[str, Any] = {}
        with _resumable(run.thread_id):
            for mode, chunk in graph.stream(start, **_stream_options(config, run)):
                _keep(seen, mode, chunk, on_event)
        start, config = _next_input(seen or _as_seen(graph.get_state(run.config)), run), run.config
        if isinstance(start, LoopState):
            return start


async def _adrive(graph: LoopGraph, start: Any, config: RunnableConfig, run: _Run) -> LoopState:
    on_event = run.options.get("on_event") or (lambda event: None)
    while True:
        seen: dict[str, Any] = {}
        with _resumable(run.thread_id):
            async for mode, chunk in graph.astream(start, **_stream_options(config, run)):
                _keep(seen, mode, chunk, on_event)
        seen = seen or _as_seen(await graph.aget_state(run.config))
        start, config = _next_input(seen, run), run.config
        if isinstance(start, LoopState):
            return start


def run_loop(task: str, rubric: RubricLike, **options: Unpack[RunOptions]) -> LoopState:
    """Run the loop to its end (or resume the unfinished run of `thread_id`).

    Options (`RunOptions`, docs/python-api.md): without `checkpointer` and `store`, runs are
    kept in `database` (a SQLite path or a `postgresql://` URL; default: the embedded one).
    The run holds its thread's lease: if another run holds it, this one raises `ThreadBusy`
    at once, or with `wait_for_thread` waits for it.

    Raises:
        InvalidInput: the task or rubric is unusable (one line per problem).
        LoopExhausted, LoopStalled, VerifierFailed: the run did not pass and the context
            has `on_exhausted="raise"`.
        ThreadFinished: `thread_id` names a run that already ended.
        ThreadBusy: another run is writing to `thread_id` right now.
        ReviewPending: the run paused for review and no `reviewer` was given.
    """
    run = _run(task, rubric, options, "run_loop")
    with _graph(run) as (graph, location):
        return _drive(graph, _start(graph.get_state(run.config), run, location), run.config, run)


def fork_loop(thread_id: str, round_number: int, **options: Unpack[ForkOptions]) -> LoopState:
    """Continue `thread_id` from just after round `round_number`, with `context`.

    The thread gets a new branch; the original run's checkpoints stay as they were. The
    fork holds the thread's lease as `run_loop` does.

    Raises:
        LookupError: the thread has no such round.
    """
    _checked(options, ForkOptions, "fork_loop")
    run = _Run(thread_id, context_for_run(options.get("context")), None, cast(RunOptions, options))
    with _graph(run) as (graph, _):
        return _drive(graph, None, _round_checkpoint(graph, run, round_number), run)


async def arun_loop(task: str, rubric: RubricLike, **options: Unpack[RunOptions]) -> LoopState:
    """`run_loop` with the graph's async API (and an async checkpointer and store)."""
    run = _run(task, rubric, options, "arun_loop")
    async with _agraph(run) as (graph, location):
        start = _start(await graph.aget_state(run.config), run, location)
        return await _adrive(graph, start, run.config, run)
