"""The `critic-loop` command (exit statuses: docs/commands.md).

Commands import what they need when they run, so `--help` and a mistake in the arguments
answer at once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import signal
import sys
import traceback
from collections.abc import Iterator, Sequence
from types import FrameType

import click
from pydantic import ValidationError

from critic_loop.cli.assistants_command import assistants
from critic_loop.cli.calibrate import calibrate, lint_rubric_command
from critic_loop.cli.history import runs, show, stats
from critic_loop.cli.memory_commands import forget, rules
from critic_loop.cli.models_command import models
from critic_loop.cli.prune_command import prune
from critic_loop.cli.run_commands import demo, fork, run
from critic_loop.cli.verbosity import Verbosity, choose, current
from critic_loop.cli.worker_command import worker
from critic_loop.errors import (
    RunInterrupted,
    RunStopped,
    Terminated,
    ThreadBusy,
    ThreadFinished,
    UnsafeCheckpoint,
    UsageProblem,
)
from critic_loop.state.errors import (
    InvalidInput,
    IsolationUnavailable,
    ModelSetupError,
    TrustViolation,
)


@click.group(
    help="A worker drafts, an independent critic grades, the worker revises.",
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="critic-loop", prog_name="critic-loop")  # read when asked
@click.option("-q", "--quiet", is_flag=True, help="Print only the final draft (and errors).")
@click.option("-v", "--verbose", is_flag=True, help="Also print the library's log lines.")
@click.option("--debug", is_flag=True, help="Print debug logs, and a traceback with every error.")
def cli(quiet: bool, verbose: bool, debug: bool) -> None:
    """Group the commands (each one's help says what it does)."""
    if quiet and (verbose or debug):
        raise UsageProblem("--quiet cannot go with --verbose or --debug: choose one")
    choose(Verbosity(quiet=quiet, verbose=verbose, debug=debug))


COMMANDS: tuple[click.Command, ...] = (run, demo, fork, runs, show, stats, prune, rules, forget)
for command in (*COMMANDS, calibrate, lint_rubric_command, models, assistants, worker):
    cli.add_command(command)


def _say(message: str) -> None:
    click.echo(f"critic-loop: {message}", err=True)
    if current().debug and sys.exc_info()[0] is not None:
        click.echo(traceback.format_exc().rstrip(), err=True)


GLOBAL_FLAGS = ("-q", "--quiet", "-v", "--verbose", "--debug")


def _global_flag_misplaced(problem: click.ClickException, arguments: list[str]) -> str | None:
    flag = problem.option_name if isinstance(problem, click.NoSuchOption) else None
    if flag not in GLOBAL_FLAGS or flag not in arguments:
        return None
    rest = [argument for argument in arguments if argument != flag]
    fixed = shlex.join(["critic-loop", flag, *rest])
    return f"{flag} is a flag of critic-loop itself and goes before the command: {fixed}"


def _invoke(arguments: list[str]) -> int:
    try:
        status = cli.main(args=arguments, prog_name="critic-loop", standalone_mode=False)
    except click.exceptions.Exit as done:  # --help, --version
        return int(done.exit_code)
    except click.ClickException as problem:  # a bad flag or value, found by click
        advice = _global_flag_misplaced(problem, arguments)
        if advice is None:
            problem.show()
            return int(problem.exit_code)
        _say(advice)
        return 2
    except click.Abort:
        _say("aborted")
        return 130
    return int(status or 0)


SIGNAL_STATUS = {"SIGINT": 130, "SIGTERM": 143}
"""Exit statuses of a run stopped by a signal (128 + the signal's number)."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def _sigterm_stops_the_run() -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
            previous = signal.signal(signal.SIGTERM, _raise_terminated)
            stack.callback(signal.signal, signal.SIGTERM, previous)
        yield


def _resume_command(arguments: Sequence[str], thread_id: str) -> str:
    database = _value_of(arguments, "--db")
    return shlex.join(["critic-loop", "run", "--thread-id", thread_id, *database])


def _value_of(arguments: Sequence[str], flag: str) -> list[str]:
    for position, argument in enumerate(arguments):
        if argument.startswith(f"{flag}="):
            return [flag, argument.partition("=")[2]]
        if argument == flag and position + 1 < len(arguments):
            return [flag, arguments[position + 1]]
    return []


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on `argv` (default: `sys.argv[1:]`); return the exit status."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    choose(Verbosity())
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        return _exit_status(arguments)
    finally:
        if "critic_loop.local_model" in sys.modules:
            from critic_loop.local_model import stop_embedded_model

            stop_embedded_model()


def _exit_status(arguments: list[str]) -> int:
    try:
        with _sigterm_stops_the_run():
            return _invoke(arguments)
    except RunStopped as stopped:
        _say(
            f"{stopped}; every finished step is saved. Resume with: "
            f"{_resume_command(arguments, stopped.thread_id)}"
        )
        return SIGNAL_STATUS[stopped.signal_name]
    except (KeyboardInterrupt, Terminated) as stopped:
        name = "SIGINT" if isinstance(stopped, KeyboardInterrupt) else "SIGTERM"
        _say(f"stopped by {name} before the run started")
        return SIGNAL_STATUS[name]
    except (
        ModelSetupError,
        LookupError,
        FileNotFoundError,
        UsageProblem,
        TrustViolation,
        UnsafeCheckpoint,
        ThreadBusy,
        IsolationUnavailable,
    ) as error:
        _say(str(error))
    except InvalidInput as error:
        _say("the input cannot be used:\n  " + "\n  ".join(error.problems))
    except ValidationError as error:
        _say(f"invalid settings:\n{error}")
    except ThreadFinished as error:
        thread = (_value_of(arguments, "--thread-id") or ["", "THREAD"])[1]
        reading = shlex.join(["critic-loop", "show", thread])
        _say(f"{error}\nto read it: {reading}")
    except RunInterrupted as error:
        if error.kept:
            advice = "Every finished step is saved; fix the cause and resume with: "
            advice += _resume_command(arguments, error.thread_id)
        else:
            advice = (
                "Nothing was kept (no draft was made). Start the model server, or point "
                "--base-url (or OPENAI_BASE_URL) at one that runs, then run the command again"
            )
        _say(f"{error}\n{advice}")
        return 3
    except Exception as error:  # a bug in critic-loop or a library it uses
        _say(
            f"critic-loop itself failed ({type(error).__name__}: {error}); "
            + ("please report it" if current().debug else "run again with --debug for details")
        )
        return 4
    return 2


def entry() -> None:
    """Run the command line as the `critic-loop` program."""
    status = main()
    if status in SIGNAL_STATUS.values():  # exit at once: a model call in flight is abandoned
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)
