"""`critic-loop run` and `critic-loop demo`: run a task round by round, and show the result."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import uuid4

import click

from critic_loop.cli.context_options import context_from_flags, context_options
from critic_loop.cli.display import show_event, show_json, show_result
from critic_loop.cli.embedded import embedded_model, has_no_model
from critic_loop.cli.review_prompt import ask_at_terminal
from critic_loop.cli.rubric_flags import written_rubric
from critic_loop.cli.ticker import Ticker, next_step
from critic_loop.cli.verbosity import current
from critic_loop.errors import RunInterrupted, RunStopped, Terminated, UsageProblem
from critic_loop.state.bounds import check_text_depth
from critic_loop.state.context import Context
from critic_loop.state.input_errors import ItemLabel, default_label
from critic_loop.state.records import SUCCESSFUL_OUTCOMES

if TYPE_CHECKING:
    from critic_loop.run import RunStart
    from critic_loop.state.loop import LoopState

logger = logging.getLogger("critic_loop.cli")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
"""The bundled example tasks (each a JSON file that `critic-loop run --input` takes)."""

EXAMPLE = EXAMPLES / "product_blurb.json"
"""The demo's task and rubric: chosen so that even a 0.5B local model passes it in a few
rounds (see benchmarks/demo_trials/). `product_description.json` beside it is a harder
one for stronger models."""

DEMO_SCOPE = "demo"
"""The memory scope the demo learns in (and recalls from) unless told otherwise."""

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


def run_options(command: F) -> F:
    """Add the options every running command shares, then one per `Context` field."""
    command = context_options(command)
    for option in reversed(
        [
            click.option(
                "--model", help="One provider:model for every role (worker, critic, distiller)."
            ),
            click.option("--thread-id", help="The thread to run in (resumes an unfinished one)."),
            click.option(
                "--wait-for-thread",
                is_flag=True,
                help=(
                    "If another process is running this thread, wait for it to end instead "
                    "of exiting 2."
                ),
            ),
            click.option(
                "--db",
                help=(
                    "SQLite file or postgresql:// URL for runs and rules "
                    "[default: $CRITIC_LOOP_DATABASE_URL, else .critic_loop/critic_loop.sqlite]"
                ),
            ),
            click.option("--json", "as_json", is_flag=True, help="Print the final state as JSON."),
        ]
    ):
        command = option(command)
    return command


def _read_json(path: Path) -> Any:
    try:
        return json.loads(check_text_depth(path.read_text(), "it"))
    except (OSError, ValueError) as error:  # JSONDecodeError, nesting too deep
        raise UsageProblem(f"cannot read {path}: {error}") from error


def _read_task(path: Path) -> str:
    """Return the task held in the file `--task-file` names.

    Raises:
        UsageProblem: the file cannot be read; the message names the flag and the way out.
    """
    try:
        return path.read_text()
    except FileNotFoundError:
        raise UsageProblem(
            f"--task-file {str(path)!r}: no such file; give the path of a text file that "
            "holds the task, or the task itself with --task"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise UsageProblem(f"--task-file {str(path)!r} cannot be read: {reason}") from None


def _context(parameters: dict[str, Any]) -> Context:
    from critic_loop.run import context_for_run

    # the user's own settings are checked (building the Context) before asking any server
    context = context_for_run(context_from_flags(parameters))
    if has_no_model(context):
        found = embedded_model()
        chosen = context.model_fields_set - {"base_url"}
        context = context.model_copy(
            update={key: value for key, value in found.items() if key not in chosen}
        )
    return context


def in_background(work: Callable[[], T]) -> T:
    """Run `work` in a daemon thread and wait for it, leaving the main thread to signals.

    Ctrl-C (or SIGTERM) then stops the wait at once, instead of waiting for a model call
    in flight to finish; the abandoned step was not saved and runs again on resume.
    """
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as error:  # handed to the waiting thread
            failure.append(error)

    worker = threading.Thread(target=run, name="critic-loop-run", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.2)
    if failure:
        raise failure[0]
    return outcome[0]


def demo_intro(data: dict[str, Any]) -> str:
    """Say what the demo shows: the task, the hidden rubric, which criteria are checks.

    It is printed before the run (not with --json or --quiet); the criteria are listed from
    `data`, so the words cannot drift from the example file.
    """
    from critic_loop.nodes.loop.check_input import validated_input

    lines = [click.wrap_text(DEMO_STORY, 90)]
    for criterion in validated_input(data).rubric:
        how = "judged" if criterion.kind == "llm" else "check"
        lines.append(f"  {how:<6}  {criterion.id}: {criterion.describe()}")
    lines.append(click.wrap_text(DEMO_WATCH, 90))
    return "\n".join(lines) + "\n"


def announce(run: RunStart, context: Context, intro: str | None) -> None:
    """Say, as the run starts, whether its thread is new or resumed, its models and its data."""
    if run.input_differs:
        click.echo("note: resuming with the thread's own task and rubric, not the ones given")
    if intro:
        click.echo(intro)
    click.echo(
        f"critic-loop: {'resuming' if run.resuming else 'new'} thread {run.thread_id}; "
        f"worker {context.worker_model}, critic {context.critic_model}, "
        f"up to {context.max_iterations} rounds; data in {run.location}"
    )


def execute(
    data: dict[str, Any],
    parameters: dict[str, Any],
    label: ItemLabel = default_label,
    intro: str | None = None,
) -> int:
    """Run (or resume) the loop on `data` with the command's settings; return the exit status.

    The input is validated (its own mistakes first, before asking any server), then the
    models, checks and prompts are checked, then `run_loop` runs in the background
    (`in_background`), printing progress lines and a live status line on a terminal.
    `label` names rubric items in error messages as the user wrote them; `intro`, if
    given, is printed before the run starts (not with --json or --quiet).
    """
    import httpx
    import openai

    from critic_loop.nodes.loop.check_input import preflight, validated_input
    from critic_loop.results import LoopDidNotPass
    from critic_loop.run import run_loop

    if parameters.get("on_exhausted"):
        raise UsageProblem(
            "--on-exhausted is for the Python helpers; the command line exits 1 for every run "
            "that did not pass"
        )
    checked = validated_input(data, label)
    context = _context(parameters)
    preflight(context, checked.rubric)
    as_json = bool(parameters.get("as_json"))
    quiet = current().quiet
    show_progress = not (as_json or quiet)
    thread_id = parameters.get("thread_id") or uuid4().hex
    started = threading.Event()  # the thread's lease is held and its run begins

    def run_at_terminal() -> LoopState:
        with Ticker(enabled=show_progress) as ticker:

            def on_start(run: RunStart) -> None:
                started.set()
                if not show_progress:
                    return
                announce(run, context, intro)
                starting = "starting: recall, then the worker drafts round 1"
                ticker.show("resuming" if run.resuming else starting)

            def on_event(event: dict[str, Any]) -> None:
                with ticker.paused():
                    show_event(event)
                ticker.show(next_step(event))

            def review(request: dict[str, Any]) -> dict[str, Any]:
                ticker.show(None)
                return ask_at_terminal(request)

            return run_loop(
                checked.task,
                checked.rubric,
                context=context,
                thread_id=thread_id,
                database=parameters.get("db"),
                on_event=on_event if show_progress else None,
                reviewer=review if context.review != "never" else None,
                wait_for_thread=bool(parameters.get("wait_for_thread")),
                on_start=on_start,
            )

    try:
        state = in_background(run_at_terminal)
    except LoopDidNotPass as failure:
        state = failure.state
    except (KeyboardInterrupt, Terminated) as stop:
        if not started.is_set():  # waiting for the lease, or reading the thread
            raise
        signal_name = "SIGINT" if isinstance(stop, KeyboardInterrupt) else "SIGTERM"
        raise RunStopped(thread_id, signal_name) from None
    except Exception as error:
        if not started.is_set():  # the lease, the database or the thread refused the run
            raise
        if not isinstance(error, openai.APIError | httpx.HTTPError | OSError):
            logger.error("the run failed unexpectedly", exc_info=current().debug)
        raise RunInterrupted(thread_id, error) from error
    if as_json:
        show_json(state)
    elif quiet:
        click.echo(state.final)
    else:
        show_result(state, thread_id)
    return 0 if state.outcome in SUCCESSFUL_OUTCOMES else 1


@click.command()
@click.option(
    "--input",
    "input_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help='JSON file: {"task": ..., "rubric": [...]}.',
)
@click.option("--task", help="The task, as text.")
@click.option(
    "--task-file", type=click.Path(path_type=Path, dir_okay=False), help="A file holding the task."
)
@click.option(
    "--rubric",
    "rubric_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help='JSON file: [{"id": ..., "text": ...}, ...].',
)
@click.option(
    "--criterion", multiple=True, metavar="ID=TEXT", help="A sentence the judge grades; repeatable."
)
@click.option(
    "--check",
    multiple=True,
    metavar="ID=KIND[:NAME=VALUE,...]",
    help="A deterministic check, e.g. length=word_count:max=120; repeatable.",
)
@click.option(
    "--tests",
    multiple=True,
    metavar="[ID=]FILE",
    help="A pytest file run against the drafted code; repeatable.",
)
@run_options
def run(**parameters: Any) -> int:
    """Run a task against a rubric, round by round.

    The exit status is 0 when the critic passed the result, 1 when the run ended without
    a pass, 2 on bad input or setup, and 3 when a model or the network failed mid-run
    (every finished step is saved: run again with the same --thread-id).
    """
    input_file = parameters["input_file"]
    flags = ("--task", "--task-file", "--rubric", "--criterion", "--check", "--tests")
    keys = ("task", "task_file", "rubric_file", "criterion", "check", "tests")
    given = [flag for flag, key in zip(flags, keys, strict=True) if parameters.get(key)]
    if input_file and given:
        raise UsageProblem(f"--input holds the task and rubric: drop {', '.join(given)}")
    if parameters["task"] and parameters["task_file"]:
        raise UsageProblem("give the task once: --task or --task-file, not both")
    if input_file:
        data = _read_json(input_file)
        rubric_items = data.get("rubric") if isinstance(data, dict) else None
        written = written_rubric(rubric_items or [], str(input_file), {})
        return execute(data, parameters, written.label)
    task = _read_task(parameters["task_file"]) if parameters["task_file"] else parameters["task"]
    from_file = _read_json(parameters["rubric_file"]) if parameters["rubric_file"] else []
    if not isinstance(from_file, list):
        raise UsageProblem(f"{parameters['rubric_file']}: a rubric file holds a JSON list")
    written = written_rubric(
        from_file,
        str(parameters["rubric_file"]),
        {
            "--criterion": parameters["criterion"],
            "--check": parameters["check"],
            "--tests": parameters["tests"],
        },
    )
    if not written.criteria:
        raise UsageProblem(
            "the rubric is empty: give at least one --criterion ID=TEXT, --check or --tests "
            "(or a --rubric file)"
        )
    return execute({"task": task or "", "rubric": written.criteria}, parameters, written.label)


@click.command()
@run_options
def demo(**parameters: Any) -> int:
    """Run the bundled example: a short product description under three criteria.

    Two are checks decided by code (a word limit, the shop's closing line) and one is
    judged by the critic model; the worker sees none of them, only the critic's hints.
    It is sized so that a small local model passes it within the default rounds. Its
    lessons are kept in the memory scope `DEMO_SCOPE` unless `--memory-scope` (or
    CRITIC_LOOP_MEMORY_SCOPE) names another, so they stay out of the user's own runs.
    """
    data = _read_json(EXAMPLE)
    if parameters.get("memory_scope") is None and not os.environ.get("CRITIC_LOOP_MEMORY_SCOPE"):
        parameters = {**parameters, "memory_scope": DEMO_SCOPE}
    return execute(data, parameters, intro=demo_intro(data))
