"""The command line: `python -m benchmarks.memory --base-url URL --model openai:NAME`.

It checks what it can before the first model call (the task file, the settings against
the installed critic_loop, the report file), runs the sequence with memory off and on
into the report, and prints the tables. Progress goes to stderr as each task finishes.

Exit status: 0 when the run finished, 2 on bad input or setup, 3 when the run stopped
because rows kept failing, 130 when interrupted (the report keeps every finished row;
`--resume` continues it).
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmarks.effectiveness.cli import UsageError, choose_model, comma_names, field_setting
from benchmarks.memory.report import MODES, Report, ReportError, build_settings, rows_of
from benchmarks.memory.runner import RunAborted, run_benchmark
from benchmarks.memory.summary import format_report
from benchmarks.memory.taskset import (
    QUICK_FAMILIES,
    TASKS_FILE,
    Task,
    TaskFileError,
    TaskSet,
    load_tasks,
    quick,
    select,
    sequence,
)
from critic_loop.nodes.models.discovery import LOCAL_SETTINGS
from critic_loop.state.context import Context

DEFAULT_ROUNDS = 4
QUICK_ROUNDS = 3
DEFAULT_OUT = Path("memory-report.json")

HARNESS_FIELDS = frozenset(
    {"worker_model", "critic_model", "base_url", "max_iterations", "memory", "on_exhausted"}
)
"""Settings the harness owns (`--model`, `--base-url`, `--rounds`, the mode); `--set` may not."""

BENCHMARK_SETTINGS: dict[str, Any] = {"candidates": 1}
"""Settings of both modes unless `--set` says otherwise: one first draft per run, so a
round is one draft and the rounds to pass measure what memory changes (critic-loop's
default, `candidates: auto`, drafts three side by side for these all-check rubrics, each
counted as an attempt, at three times the worker's calls in both modes)."""


def parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    parse = argparse.ArgumentParser(
        prog="python -m benchmarks.memory",
        description=(
            "Does memory help? Runs families of tasks that share a requirement the worker "
            "is never told (the critic checks it), interleaved with unrelated tasks, once "
            "with memory off and once with memory on, against an OpenAI-compatible server; "
            "reports rounds to pass and pass rate on each family's later tasks, the "
            "unrelated tasks, calls and tokens, and which rules were learned and recalled."
        ),
    )
    parse.add_argument(
        "--base-url", help="the OpenAI-compatible server (default: $OPENAI_BASE_URL)"
    )
    parse.add_argument(
        "--model", help="openai:NAME: worker, critic and distiller (default: the model it serves)"
    )
    chosen = parse.add_mutually_exclusive_group()
    chosen.add_argument(
        "--families", type=comma_names, help="these families only, comma-separated (default: all)"
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
    parse.add_argument(
        "--out", type=Path, help=f"the report file to write (default: {DEFAULT_OUT})"
    )
    parse.add_argument(
        "--resume", type=Path, metavar="REPORT", help="continue this report: skip rows it has"
    )
    parse.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    parse.add_argument(
        "--set",
        type=field_setting,
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a critic-loop Context setting for both modes (VALUE read as JSON if it parses), "
        "e.g. --set recall_k=3",
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
            raise UsageError(f"unknown family {error}; known: {known}") from error
    return tasks


def mode_contexts(
    model: str, base_url: str | None, rounds: int, extra: dict[str, Any]
) -> dict[str, Context]:
    """Build each mode's run context: the same settings, memory off or on.

    With a server named (`base_url`), the settings the command line picks for a local
    server's model (`LOCAL_SETTINGS`: the judge asked one criterion at a time, the worker's
    answer capped) apply unless `extra` (`--set`) says otherwise; so do
    `BENCHMARK_SETTINGS`, with or without a server.

    Raises:
        UsageError: `extra` sets a field the harness owns, or a setting is invalid.
    """
    owned = sorted(HARNESS_FIELDS & set(extra))
    if owned:
        raise UsageError(f"--set cannot change {', '.join(owned)}: use --model and --rounds")
    unknown = sorted(set(extra) - set(Context.model_fields))
    if unknown:
        raise UsageError(f"--set names {', '.join(unknown)}, not a Context field")
    shared = {
        "worker_model": model,
        "critic_model": model,
        "base_url": base_url,
        "max_iterations": rounds,
        "on_exhausted": "best",
        **BENCHMARK_SETTINGS,
        **(LOCAL_SETTINGS if base_url else {}),
        **extra,
    }
    try:
        return {mode: Context(**shared, memory=mode == "on") for mode in MODES}
    except ValidationError as error:
        raise UsageError(f"invalid settings: {error}") from error


def open_report(args: argparse.Namespace, settings: dict[str, Any]) -> Report:
    """Create the report, or open the one to resume.

    Raises:
        UsageError, ReportError: the files named conflict or cannot be used.
    """
    if args.resume is not None:
        if args.out is not None and args.out != args.resume:
            raise UsageError("--resume writes to the report it continues: leave out --out")
        return Report.resume(args.resume, settings)
    return Report.create(args.out or DEFAULT_OUT, settings, overwrite=args.overwrite)


def prepare(
    args: argparse.Namespace,
) -> tuple[list[list[Task]], dict[str, Context], Report]:
    """Check the command line and set the run up: sequences, contexts and report.

    Raises:
        UsageError, TaskFileError, ReportError, ValueError: bad input.
    """
    if args.repeats < 1 or args.jobs < 1:
        raise UsageError("--repeats and --jobs must be at least 1")
    tasks = choose_tasks(args)
    model, base_url = choose_model(args)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    extra = dict(args.set)
    contexts = mode_contexts(model, base_url, rounds, extra)
    seeds = [None if args.seed is None else args.seed + n for n in range(args.repeats)]
    sequences = [sequence(tasks, seed) for seed in seeds]
    settings = build_settings(
        model=model,
        base_url=base_url,
        rounds=rounds,
        extra=extra,
        repeats=args.repeats,
        seed=args.seed,
        task_ids=[task.id for task in sequences[0]],
        families={family.id: family.requirement for family in tasks.families},
        contexts={mode: context.model_dump(mode="json") for mode, context in contexts.items()},
    )
    settings["sequences"] = [[task.id for task in tasks] for tasks in sequences]
    return sequences, contexts, open_report(args, settings)


def _configure_logging() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("benchmarks").setLevel(logging.INFO)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark as the command line says; return the exit status."""
    args = parser().parse_args(argv)
    _configure_logging()
    try:
        sequences, contexts, report = prepare(args)
    except (UsageError, TaskFileError, ReportError, ValueError) as error:
        print(f"memory: {error}", file=sys.stderr)
        return 2
    print(
        f"memory: {len(sequences)} sequence(s) of {len(sequences[0])} task(s), memory off "
        f"and on, into {report.path}",
        file=sys.stderr,
    )
    status = 0
    try:
        run_benchmark(sequences, contexts, report, jobs=args.jobs)
    except KeyboardInterrupt:
        print(f"\ninterrupted: continue with --resume {report.path}", file=sys.stderr)
        status = 130
    except RunAborted as error:
        print(f"memory: stopped: {error}", file=sys.stderr)
        status = 3
    print(format_report(report.data, rows_of(report.data)))
    print(f"\nreport: {report.path}")
    return status
