"""`python -m benchmarks.memory`: does memory help?

It checks what it can before the first model call (the task file, the settings against the
installed critic_loop, the report file), runs the sequence with memory off and on into the
report, and prints the tables. Progress goes to stderr as each task finishes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from benchmarks.harness import cli
from benchmarks.harness.configs import resolve, shared
from benchmarks.harness.report import describe
from benchmarks.harness.runner import plan, run_cells
from benchmarks.memory.run import MODES, MemoryReport, step_runner
from benchmarks.memory.summary import format_report
from benchmarks.memory.taskset import (
    QUICK_FAMILIES,
    TASKS_FILE,
    TaskSet,
    load_tasks,
    quick,
    select,
    sequence,
)
from critic_loop.nodes.models.discovery import LOCAL_SETTINGS

DEFAULT_ROUNDS = 4
QUICK_ROUNDS = 3

OWNED = ("worker_model", "critic_model", "base_url", "max_iterations", "memory", "on_exhausted")
"""Settings the harness owns (`--model`, `--base-url`, `--rounds`, the mode); `--set` may not."""


def parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    parse = cli.parser(
        "python -m benchmarks.memory",
        "Does memory help? Runs families of tasks that share a requirement the worker is "
        "never told (the critic checks it), interleaved with unrelated tasks, once with "
        "memory off and once with memory on, against an OpenAI-compatible server; reports "
        "rounds to pass and pass rate on each family's later tasks, the unrelated tasks, "
        "calls and tokens, and which rules were learned and recalled.",
        "memory-report.json",
    )
    chosen = parse.add_mutually_exclusive_group()
    chosen.add_argument(
        "--families",
        type=cli.comma_names,
        help="these families only, comma-separated (default: all)",
    )
    chosen.add_argument(
        "--quick",
        action="store_true",
        help=(
            f"a smoke run for CI: families {', '.join(QUICK_FAMILIES)} (3 tasks each), one "
            f"unrelated task, {QUICK_ROUNDS} rounds"
        ),
    )
    parse.add_argument(
        "--rounds", type=int, help=f"round cap of every run (default {DEFAULT_ROUNDS})"
    )
    parse.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="run the whole sequence this many times, each mode in a fresh store (default 1)",
    )
    parse.add_argument(
        "--seed", type=int, help="shuffle the families' order in each pass (per repeat)"
    )
    parse.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="run up to this many sequences (memory off, memory on, per repeat) side by side "
        "(default 1: task by task, off then on); a server that answers one request at a "
        "time answers them in turn",
    )
    parse.add_argument("--tasks-file", type=Path, default=TASKS_FILE, help="the task set")
    return parse


def choose_tasks(args: argparse.Namespace) -> TaskSet:
    """Load the task set and keep what the command line asks for.

    Raises:
        UsageError, TaskFileError: the selection or the task file is unusable.
    """
    tasks = load_tasks(args.tasks_file)
    if args.quick:
        return quick(tasks)
    if args.families:
        try:
            return select(tasks, families=args.families)
        except KeyError as error:
            known = ", ".join(family.id for family in tasks.families)
            raise cli.UsageError(f"unknown family {error}; known: {known}") from error
    return tasks


def prepare(args: argparse.Namespace) -> tuple[MemoryReport, Callable[[], object], str]:
    """Check the command line and set the run up.

    With a server named, the settings the command line picks for a local server's model
    (`LOCAL_SETTINGS`) apply unless `--set` says otherwise; the rest are critic-loop's
    defaults.

    Raises:
        UsageError, TaskFileError, ConfigError, ReportError, ValueError: bad input.
    """
    if args.repeats < 1 or args.jobs < 1:
        raise cli.UsageError("--repeats and --jobs must be at least 1")
    tasks = choose_tasks(args)
    model, base_url = cli.choose_model(args)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    extra = dict(args.set)
    common = shared(
        {**(LOCAL_SETTINGS if base_url else {}), **extra},
        OWNED,
        "--model, --base-url and --rounds",
        worker_model=model,
        critic_model=model,
        base_url=base_url,
        max_iterations=rounds,
        on_exhausted="best",
    )
    configurations = resolve(list(MODES), common, MODES)
    seeds = [None if args.seed is None else args.seed + n for n in range(args.repeats)]
    sequences = [sequence(tasks, seed) for seed in seeds]
    order = [task.id for task in sequences[0]]
    settings = describe(
        model,
        base_url,
        extra,
        configurations,
        MODES,
        order,
        rounds=rounds,
        repeats=args.repeats,
        seed=args.seed,
        families={family.id: family.requirement for family in tasks.families},
        sequences=[[task.id for task in tasks] for tasks in sequences],
    )
    report = cli.open_report(MemoryReport, args, settings)
    cells = plan(sequences, configurations, report)
    lane = lambda cell: (cell.repeat, cell.configuration.name)  # noqa: E731
    what = f"{len(sequences)} sequence(s) of {len(sequences[0])} task(s), memory off and on"
    return (
        report,
        lambda: run_cells(cells, step_runner(report), report, jobs=args.jobs, lane=lane),
        what,
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark as the command line says; return the exit status."""
    args = parser().parse_args(argv)
    return cli.run_command("memory", lambda: prepare(args), format_report)
