"""`critic-loop run`, `demo` and `fork`: run a task round by round, resume or fork a thread."""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import uuid4

import click

from critic_loop.cli.context_options import (
    SectionedCommand,
    context_from_flags,
    context_options,
    db_option,
    flag_of,
    json_option,
    option,
)
from critic_loop.cli.verbosity import current
from critic_loop.errors import (
    RunInterrupted,
    RunStopped,
    Terminated,
    ThreadFinished,
    UsageProblem,
)
from critic_loop.state.context import Context

# the rest is imported where it is used: `--help` and a mistake in the arguments answer
# without loading the run's machinery
if TYPE_CHECKING:
    from critic_loop.cli.stored_threads import Thread
    from critic_loop.run import RunStart
    from critic_loop.state.loop import LoopState
    from critic_loop.state.run_input import ItemLabel

logger = logging.getLogger("critic_loop.cli")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "product_blurb.json"
"""The demo's task and rubric, sized for a 0.5B local model (benchmarks/demo_trials/)."""

DEMO_SCOPE = "demo"
FIRST_STEP = "starting: recall, then the worker drafts round 1"

DEMO_STORY = (
    "About this demo: a worker model writes a short product description for a water "
    "bottle, and an independent critic grades each draft against a rubric the worker never "
    "sees; the worker gets only the critic's hints on what failed. Checks are decided by "
    "code, judged criteria by the critic model:"
)
DEMO_WATCH = (
    "Watch for: the first draft usually misses the shop's closing line, which nobody told "
    "the worker; the check's hint gets it fixed in the next round, and only then does the "
    "critic model judge the rest."
)

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

FILE = click.Path(path_type=Path, dir_okay=False)
task_option = functools.partial(option, section="Task and rubric")
thread_option = functools.partial(option, section="Thread and data")


def _run_options(command: F) -> F:
    command = json_option("the final state")(command)  # listed last
    command = context_options(command)
    command = db_option(command, "Thread and data")
    command = thread_option(
        "--wait-for-thread",
        is_flag=True,
        help="If another process is running the thread, wait for it instead of exiting 2.",
    )(command)
    return option(
        "--model",
        section="Models",
        help="One provider:model for every role (worker, critic, distiller).",
    )(command)


def _thread_options(command: F) -> F:
    command = thread_option(
        "--switch-models",
        is_flag=True,
        help="Resuming: use the models given here instead of the ones the thread ran with.",
    )(command)
    return thread_option(
        "--thread-id",
        help=(
            "The thread to run in. An unfinished one resumes with its own task, rubric, models "
            "and settings (flags given here change the settings)."
        ),
    )(command)


def _in_background(work: Callable[[], T]) -> T:
    # the main thread is left to signals: Ctrl-C (or SIGTERM) stops the wait at once, not
    # after a model call in flight; the abandoned step was not saved and runs again on resume
    outcome: Future[T] = Future()

    def run() -> None:
        try:
            outcome.set_result(work())
        except BaseException as error:  # handed to the waiting thread
            outcome.set_exception(error)

    worker = threading.Thread(target=run, name="critic-loop-run", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.2)
    return outcome.result()


def _settings(parameters: Mapping[str, Any], stored: Thread | None, switching: bool) -> Context:
    # the thread's own settings, changed by the flags given; a served client's stay a
    # client's (held to the operator's policy, as the server held them)
    from critic_loop.cli.context_options import settings_from_flags
    from critic_loop.thread_settings import MODEL_SETTINGS

    if stored is None or stored.settings is None:
        return context_from_flags(parameters)
    kept = stored.settings
    flags = settings_from_flags(parameters)
    fields = Context.model_fields
    ran = {name: fields[name].get_default(call_default_factory=True) for name in MODEL_SETTINGS}
    ran |= {name: value for name, value in kept.values.items() if name in ran}
    changes = [
        (name, ran[name], flags[name]) for name in ran if flags.get(name, ran[name]) != ran[name]
    ]
    if changes and not switching:
        name, before, after = changes[0]
        raise UsageProblem(
            f"thread {stored.thread_id} ran with {name} {before!r}; {flag_of(name, parameters)} "
            f"{after!r} would switch it mid-thread: add --switch-models to do so, or leave the "
            "flag off to resume with the thread's own"
        )
    if changes and not current().quiet:
        switched = ", ".join(f"{name} {before} -> {after}" for name, before, after in changes)
        click.echo(f"note: switching models mid-thread: {switched}", err=True)
    theirs = {key: value for key, value in kept.values.items() if key not in flags}
    if kept.by_client and theirs:
        from critic_loop.nodes.operator_policy import Trust, check_context
        from critic_loop.state.errors import TrustViolation

        try:
            check_context(Context(**theirs), Trust(served=True))
        except TrustViolation as refused:
            raise TrustViolation(
                f"thread {stored.thread_id}'s settings were chosen by a client of a server, and "
                f"stay a client's: {refused} (a flag given here replaces the setting)"
            ) from None
    return context_from_flags(parameters, kept.values)


def _context(parameters: Mapping[str, Any], stored: Thread | None, switching: bool) -> Context:
    # the flags' settings (and the thread's), on the embedded model if none is set
    context = _settings(parameters, stored, switching)
    if not _has_no_model(context):
        return context
    found = _embedded_model()
    chosen = context.model_fields_set
    # the embedded server's address is this process's: it is used, not kept as a setting
    added = {key: value for key, value in found.items() if key not in chosen}
    fields = chosen | (set(added) - {"base_url"})
    return Context.model_construct(_fields_set=fields, **{**dict(context), **added})


def _demo_intro(rubric: list[Any]) -> str:
    lines = [click.wrap_text(DEMO_STORY, 90)]
    for criterion in rubric:
        how = "judged" if criterion.kind == "llm" else "check"
        lines.append(f"  {how:<6}  {criterion.id}: {criterion.describe()}")
    lines.append(click.wrap_text(DEMO_WATCH, 90))
    return "\n".join(lines) + "\n"


def _empty_rubric(why: str = "") -> UsageProblem:
    return UsageProblem(
        "the rubric is empty: give at least one --criterion ID=TEXT, --check or --tests "
        f"(or a --rubric file){why}"
    )


def _ids(data: Mapping[str, Any]) -> tuple[Any, list[Any]]:
    rubric = [item.get("id") if isinstance(item, Mapping) else None for item in data["rubric"]]
    return data.get("task"), rubric


def _finished(stored: Thread) -> UsageProblem:
    thread = stored.thread_id
    return UsageProblem(
        f"thread {thread} already finished ({stored.outcome} after {stored.rounds} round(s)); "
        f"to read it: critic-loop show {thread}; to continue it from an earlier round: "
        f"critic-loop fork {thread} --round N (N from 1 to {max(stored.rounds, 1)}); or give "
        "a new --thread-id"
    )


def _forget_if_empty(database: str | None, thread_id: str) -> bool:
    from critic_loop.cli.stored_threads import latest_of_thread
    from critic_loop.persistence import open_persistence

    thread = latest_of_thread(database, thread_id)
    if thread is None or thread.values.get("drafts"):
        return False
    with open_persistence(database) as persistence:
        persistence.checkpointer.delete_thread(thread_id)
    return True


def _execute(
    given: dict[str, Any] | None,
    parameters: dict[str, Any],
    label: ItemLabel | None = None,
    intro: Callable[[list[Any]], str] | None = None,
) -> int:
    """Run `given` (or resume the thread's own run); `label` names items as the user wrote them."""
    from critic_loop.nodes.loop.admission import admit_run
    from critic_loop.state.run_input import default_label

    if parameters.get("on_exhausted"):
        raise UsageProblem(
            "--on-exhausted is for the Python helpers; the command line exits 1 for every run "
            "that did not pass"
        )
    thread_id = parameters.get("thread_id") or uuid4().hex
    stored = None
    if parameters.get("thread_id"):
        from critic_loop.cli.stored_threads import latest_of_thread

        stored = latest_of_thread(parameters.get("db"), thread_id)
    data = {"task": stored.task, "rubric": stored.values["rubric"]} if stored else given
    if data is None:
        raise _empty_rubric(f" (no thread {thread_id!r} to resume)")
    switching = bool(parameters.get("switch_models"))
    admitted = admit_run(  # the input first: a model server starts only for valid input
        data,
        lambda: _context(parameters, stored, switching),
        label=label if label and not stored else default_label,
    )
    shown = _show_progress(parameters)
    if shown and stored is not None and given is not None and _ids(given) != _ids(data):
        click.echo("note: resuming with the thread's own task and rubric, not the ones given")
    if shown and intro is not None:
        click.echo(intro(admitted.rubric))
    from critic_loop.run import run_admitted  # the run's machinery, once its input is valid

    start = functools.partial(run_admitted, admitted, thread_id=thread_id)
    try:
        return _run_at_terminal(start, thread_id, parameters)
    except ThreadFinished:
        if stored is None:
            raise
        raise _finished(stored) from None


def _refused(error: BaseException) -> bool:  # a server that cannot be reached, not a slow one
    import openai

    origin = error.__cause__
    connection = isinstance(origin, openai.APIConnectionError)
    return connection and not isinstance(origin, openai.APITimeoutError)


def _show_progress(parameters: Mapping[str, Any]) -> bool:
    return not (parameters.get("as_json") or current().quiet)


def _run_at_terminal(
    start: Callable[..., LoopState],
    thread_id: str,
    parameters: Mapping[str, Any],
    fork_round: int | None = None,
) -> int:
    # `start(**options)` runs the loop (`run_admitted` or `fork_loop`), telling `on_start` its
    # `RunStart` once it holds the thread; the run works in the background, this thread shows it
    import httpx
    import openai

    from critic_loop.cli.display import ask_at_terminal, show_event, show_result
    from critic_loop.cli.ticker import Ticker, next_step
    from critic_loop.results import LoopDidNotPass
    from critic_loop.state.records import SUCCESSFUL_OUTCOMES

    shown = _show_progress(parameters)
    began: list[RunStart] = []  # the thread's lease is held and its run begins

    def run_shown() -> LoopState:
        with Ticker(enabled=shown) as ticker:

            def on_start(run: RunStart) -> None:
                began.append(run)
                if not shown:
                    return
                if fork_round is not None:
                    what = f"fork of thread {thread_id} from round {fork_round}"
                    status = f"resuming after round {fork_round}"
                else:
                    what = f"{'resuming' if run.resuming else 'new'} thread {thread_id}"
                    status = "resuming" if run.resuming else FIRST_STEP
                context = run.context
                click.echo(
                    f"critic-loop: {what}; worker {context.worker_model}, critic "
                    f"{context.critic_model}, up to {context.max_iterations} rounds; "
                    f"data in {run.location}"
                )
                ticker.show(status)

            def on_event(event: dict[str, Any]) -> None:
                with ticker.paused():
                    show_event(event)
                ticker.show(next_step(event))

            def review(request: dict[str, Any]) -> dict[str, Any]:
                ticker.show(None)
                return ask_at_terminal(request)

            options: dict[str, Any] = {"on_event": on_event if shown else None}
            if fork_round is None:  # a fork asks for no review
                options["reviewer"] = review
            return start(
                **options,
                on_start=on_start,
                database=parameters.get("db"),
                wait_for_thread=bool(parameters.get("wait_for_thread")),
            )

    try:
        state = _in_background(run_shown)
    except LoopDidNotPass as failure:
        state = failure.state
    except (KeyboardInterrupt, Terminated) as stop:
        if not began:  # waiting for the lease, or reading the thread
            raise
        signal_name = "SIGINT" if isinstance(stop, KeyboardInterrupt) else "SIGTERM"
        raise RunStopped(thread_id, signal_name) from None
    except Exception as error:
        if not began:  # the lease, the database or the thread refused the run
            raise
        if not isinstance(error, openai.APIError | httpx.HTTPError | OSError):
            logger.error("the run failed unexpectedly", exc_info=current().debug)
        interrupted = RunInterrupted(thread_id, error)
        if not began[0].resuming and _refused(error):
            interrupted.kept = not _forget_if_empty(parameters.get("db"), thread_id)
        raise interrupted from error
    if parameters.get("as_json"):
        click.echo(state.model_dump_json(indent=2))
    elif current().quiet:
        click.echo(state.final)
    else:
        show_result(state, thread_id)
    return 0 if state.outcome in SUCCESSFUL_OUTCOMES else 1


@click.command(cls=SectionedCommand)
@task_option("--input", "input_file", type=FILE, help='JSON file: {"task": ..., "rubric": [...]}.')
@task_option("--task", help="The task, as text.")
@task_option("--task-file", type=FILE, help="A file holding the task.")
@task_option(
    "--rubric", "rubric_file", type=FILE, help='JSON file: [{"id": ..., "text": ...}, ...].'
)
@task_option(
    "--criterion", multiple=True, metavar="ID=TEXT", help="A sentence the judge grades; repeatable."
)
@task_option(
    "--check",
    multiple=True,
    metavar="ID=KIND[:NAME=VALUE,...]",
    help="A deterministic check, e.g. length=word_count:max=120; repeatable.",
)
@task_option(
    "--tests",
    multiple=True,
    metavar="[ID=]FILE",
    help="A pytest file run against the drafted code; repeatable.",
)
@_thread_options
@_run_options
def run(**parameters: Any) -> int:
    """Run a task against a rubric, round by round (or resume a thread: --thread-id alone).

    The exit status is 0 when the critic passed the result, 1 when the run ended without
    a pass, 2 on bad input or setup, and 3 when a model or the network failed mid-run
    (every finished step is saved: run again with the same --thread-id).
    """
    from critic_loop.cli.rubric_flags import read_json, read_text, written_rubric

    input_file = parameters["input_file"]
    written_flags = ("--criterion", "--check", "--tests")
    keys = {"--task": "task", "--task-file": "task_file", "--rubric": "rubric_file"}
    keys.update({flag: flag[2:] for flag in written_flags})
    given = [flag for flag, key in keys.items() if parameters.get(key)]
    if input_file and given:
        raise UsageProblem(f"--input holds the task and rubric: drop {', '.join(given)}")
    if parameters["task"] and parameters["task_file"]:
        raise UsageProblem("give the task once: --task or --task-file, not both")
    if input_file:
        data = read_json(input_file, "--input", "a JSON file that holds the task and the rubric")
        items = data.get("rubric") if isinstance(data, dict) else None
        return _execute(data, parameters, written_rubric(items or [], str(input_file), {}).label)
    task = parameters["task"]
    if parameters["task_file"]:
        holding = "a text file that holds the task, or the task itself with --task"
        task = read_text(parameters["task_file"], "--task-file", holding)
    from_file: Any = []
    if parameters["rubric_file"]:
        holding = "a JSON file that holds a list of criteria"
        from_file = read_json(parameters["rubric_file"], "--rubric", holding)
    if not isinstance(from_file, list):
        raise UsageProblem(f"{parameters['rubric_file']}: a rubric file holds a JSON list")
    written = written_rubric(
        from_file,
        str(parameters["rubric_file"]),
        {flag: parameters[flag[2:]] for flag in written_flags},
    )
    if not written.criteria and not parameters.get("thread_id"):
        raise _empty_rubric()  # before the run's machinery is loaded
    data = {"task": task or "", "rubric": written.criteria} if written.criteria else None
    return _execute(data, parameters, written.label)


@click.command(cls=SectionedCommand)
@_thread_options
@_run_options
def demo(**parameters: Any) -> int:
    """Run the bundled example: a short product description under three criteria.

    Two are checks decided by code (a word limit, the shop's closing line) and one is
    judged by the critic model; the worker sees none of them, only the critic's hints.
    It is sized so that a small local model passes it within the default rounds. Its
    lessons are kept in the memory scope 'demo' unless --memory-scope (or
    CRITIC_LOOP_MEMORY_SCOPE) names another, so they stay out of your own runs.
    """
    from critic_loop.cli.rubric_flags import read_json

    data = read_json(EXAMPLE, "the demo's task", "the bundled example")
    if parameters.get("memory_scope") is None and not os.environ.get("CRITIC_LOOP_MEMORY_SCOPE"):
        parameters = {**parameters, "memory_scope": DEMO_SCOPE}
    return _execute(data, parameters, intro=_demo_intro)


@click.command(cls=SectionedCommand)
@click.argument("thread_id", metavar="THREAD")
@thread_option(
    "--round",
    "round_number",
    type=click.IntRange(min=1),
    required=True,
    help="The round to continue from (its draft and verdict are kept; the next is new).",
)
@_run_options
def fork(thread_id: str, round_number: int, **parameters: Any) -> int:
    """Continue a thread from just after round N, as a new branch of it.

    The thread's own task, rubric and settings are kept; flags given here change them
    (models too: a fork is where to try a stronger critic). The original run's history
    stays as it was; `critic-loop show THREAD` then tells the fork's story.
    """
    from critic_loop.cli.stored_threads import latest_of_thread
    from critic_loop.run import fork_loop

    stored = latest_of_thread(parameters.get("db"), thread_id)
    if stored is None:
        raise UsageProblem(
            f"no run with thread id {thread_id!r} to fork (critic-loop runs lists them)"
        )
    if round_number > stored.rounds:
        raise UsageProblem(
            f"thread {thread_id} has {stored.rounds} graded round(s): --round goes from 1 to "
            f"{stored.rounds}"
        )
    context = _context(parameters, stored, switching=True)
    start = functools.partial(fork_loop, thread_id, round_number, context=context)
    return _run_at_terminal(start, thread_id, parameters, fork_round=round_number)


KEY_VARIABLES = ("OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")


def _has_no_model(context: Context) -> bool:
    # no server and no model of its own (a thread that ran on the embedded model names it)
    from critic_loop.local_model.settings import LocalModelSettings
    from critic_loop.nodes.models.discovery import names_a_model, server_url

    environ = os.environ
    if server_url(context.base_url, environ) is not None:
        return False
    if names_a_model(context.model_fields_set, environ) or context.critic_models:
        embedded = f"openai:{LocalModelSettings().alias}"
        return {context.worker_model, context.critic_model, *context.critic_models} == {embedded}
    return not any(environ.get(name) for name in KEY_VARIABLES)


def _embedded_model() -> dict[str, Any]:
    from critic_loop import local_model
    from critic_loop.extras import install_command

    if not local_model.is_installed():
        raise UsageProblem(
            "no model to run: set OPENAI_API_KEY (or GOOGLE_API_KEY), or OPENAI_BASE_URL to a "
            "model server of yours, or add the embedded local model with: "
            + install_command("local")
        )
    settings = local_model.LocalModelSettings()
    quiet = current().quiet
    if not quiet:
        click.echo(
            f"critic-loop: no API key or model server set: starting the embedded model "
            f"{settings.alias} (from {settings.file or 'the cache'})",
            err=True,
        )
    with ExitStack() as stack:
        bar: Any = None

        def progress(done: int, total: int | None) -> None:
            nonlocal bar
            if bar is None:
                click.echo("critic-loop: downloading the embedded model (once)", err=True)
                length = max(total or 0, 1)
                bar = stack.enter_context(
                    click.progressbar(length=length, label="model", file=sys.stderr)
                )
            bar.update(done - bar.pos)

        try:
            found = local_model.embedded_model_context(settings, None if quiet else progress)
        except (FileNotFoundError, local_model.DownloadFailed) as error:
            raise UsageProblem(
                f"{error}. Set CRITIC_LOOP_LOCAL_MODEL_FILE to a GGUF file on disk to skip the "
                "download"
            ) from None
        except local_model.ServerFailed as error:
            raise UsageProblem(str(error)) from None
    if not quiet:
        click.echo(f"critic-loop: the embedded model serves at {found['base_url']}", err=True)
    return found
