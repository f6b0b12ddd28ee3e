"""The command line: `python -m benchmarks.effectiveness --base-url URL --model openai:NAME`.

It checks everything it can before the first model call (task files, the configurations
against the installed critic_loop, the report file), runs the pairs into the report, and
prints the table and the per-task matrix. Progress goes to stderr as each pair finishes.

Exit status: 0 when the run finished, 2 on bad input or setup, 3 when the run stopped
because pairs kept failing, 130 when interrupted (the report keeps every finished pair;
`--resume` continues it).
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.effectiveness.configs import (
    CONFIGS,
    DEFAULT_CONFIGS,
    ConfigError,
    resolve,
    shared_settings,
)
from benchmarks.effectiveness.grading import check_task
from benchmarks.effectiveness.report import Report, ReportError, build_settings, rows_of
from benchmarks.effectiveness.runner import RunAborted, run_benchmark
from benchmarks.effectiveness.summary import format_report
from benchmarks.effectiveness.taskset import (
    KINDS,
    QUICK_IDS,
    TASKS_DIR,
    Kind,
    Task,
    TaskFileError,
    load_tasks,
    select_tasks,
)
from critic_loop.nodes.models.discovery import served_model

DEFAULT_ROUNDS = 4
QUICK_ROUNDS = 2
DEFAULT_OUT = Path("effectiveness-report.json")


class UsageError(ValueError):
    """The command line asks for something impossible; the message says what."""


def comma_names(text: str) -> list[str]:
    """Read a comma-separated list of names (an argparse type)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def field_setting(text: str) -> tuple[str, Any]:
    """Read FIELD=VALUE, VALUE as JSON if it parses (an argparse type for `--set`)."""
    name, separator, raw = text.partition("=")
    if not separator or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not FIELD=VALUE")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


def parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    known = ", ".join(f"{name} {settings}" for name, settings in CONFIGS.items())
    parse = argparse.ArgumentParser(
        prog="python -m benchmarks.effectiveness",
        description=(
            "Does the critic loop beat one shot? Runs configurations of critic-loop on the "
            "benchmark's coding and writing tasks against an OpenAI-compatible server and "
            "reports pass rate, rounds and model calls per configuration."
        ),
        epilog=f"configurations: {known}",
    )
    parse.add_argument(
        "--base-url", help="the OpenAI-compatible server (default: $OPENAI_BASE_URL)"
    )
    parse.add_argument(
        "--model", help="openai:NAME, worker and critic alike (default: the model it serves)"
    )
    parse.add_argument(
        "--tasks", type=comma_names, help="task kinds, comma-separated (default: coding,writing)"
    )
    chosen = parse.add_mutually_exclusive_group()
    chosen.add_argument("--limit", type=int, help="the first N tasks of each kind")
    chosen.add_argument("--ids", type=comma_names, help="these tasks, comma-separated ids")
    chosen.add_argument(
        "--quick",
        action="store_true",
        help=f"{', '.join(QUICK_IDS)} with {QUICK_ROUNDS} rounds (a smoke run for CI)",
    )
    parse.add_argument(
        "--rounds",
        type=int,
        help=f"round budget of the loop configurations (default {DEFAULT_ROUNDS})",
    )
    parse.add_argument(
        "--configs",
        type=comma_names,
        default=list(DEFAULT_CONFIGS),
        help=f"configurations, comma-separated (default: {','.join(DEFAULT_CONFIGS)})",
    )
    parse.add_argument(
        "--out", type=Path, help=f"the report file to write (default: {DEFAULT_OUT})"
    )
    parse.add_argument(
        "--resume", type=Path, metavar="REPORT", help="continue this report: skip pairs it has"
    )
    parse.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    parse.add_argument(
        "--reuse",
        metavar="REPORT:CONFIGS",
        help="copy another report's rows of these configurations (comma-separated; NAME=OLD "
        "takes this run's NAME from the report's OLD) instead of running them again; it must "
        "have run them with the same settings, and you vouch that critic-loop's code for "
        "them is unchanged (the report records the source)",
    )
    parse.add_argument(
        "--seed", type=int, help="shuffle each kind's tasks with this seed before --limit"
    )
    parse.add_argument(
        "--set",
        type=field_setting,
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a critic-loop Context setting for every configuration (VALUE read as JSON "
        "if it parses), e.g. --set worker_max_tokens=1024",
    )
    parse.add_argument(
        "--tasks-dir", type=Path, default=TASKS_DIR, help="where coding.jsonl/writing.jsonl are"
    )
    return parse


def choose_tasks(args: argparse.Namespace) -> list[Task]:
    """Load and select the run's tasks, and check critic_loop accepts their criteria.

    Raises:
        UsageError, TaskFileError, ValueError: the selection or the task files are unusable.
    """
    if (args.quick or args.ids) and args.tasks:
        raise UsageError("--quick and --ids choose the tasks themselves: leave out --tasks")
    kinds: list[str] = args.tasks or list(KINDS)
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown:
        raise UsageError(f"unknown task kind {', '.join(unknown)}; known: {', '.join(KINDS)}")
    selected: list[Kind] = [kind for kind in KINDS if kind in kinds]
    every = [task for kind in KINDS for task in load_tasks(kind, args.tasks_dir)]
    ids = list(QUICK_IDS) if args.quick else args.ids
    if ids is not None:
        tasks = select_tasks(every, ids=ids)
    else:
        tasks = select_tasks(every, kinds=selected, limit=args.limit, seed=args.seed)
    if not tasks:
        raise UsageError("no tasks selected")
    for task in tasks:
        check_task(task)
    return tasks


def choose_model(args: argparse.Namespace) -> tuple[str, str | None]:
    """Return the model and server to use: as given, else the model the server lists.

    Raises:
        UsageError: no model was given and none can be discovered.
    """
    base_url: str | None = args.base_url or os.environ.get("OPENAI_BASE_URL") or None
    if args.model:
        return args.model, base_url
    if base_url is None:
        raise UsageError("give --model (and --base-url for a local server)")
    served = served_model(base_url)
    if served is None:
        raise UsageError(f"could not ask {base_url} which model it serves; give --model")
    return f"openai:{served}", base_url


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


def _configure_logging() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("benchmarks").setLevel(logging.INFO)


def prepare(args: argparse.Namespace) -> tuple[list[Task], Report, list[Any]]:
    """Check the command line and set the run up: tasks, report and configurations.

    Raises:
        UsageError, TaskFileError, ConfigError, ReportError, ValueError: bad input.
    """
    tasks = choose_tasks(args)
    model, base_url = choose_model(args)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    extra = dict(args.set)
    configurations = resolve(args.configs, shared_settings(model, base_url, rounds, extra))
    settings = build_settings(
        model=model,
        base_url=base_url,
        rounds=rounds,
        configurations=configurations,
        own_settings={name: CONFIGS[name] for name in args.configs},
        task_ids=[task.id for task in tasks],
        extra=extra,
        seed=args.seed,
    )
    report = open_report(args, settings)
    if args.reuse:
        source, _, names = args.reuse.rpartition(":")
        if not source or not comma_names(names):
            raise UsageError("--reuse takes REPORT:CONFIG[,NAME=OLD...]")
        pairs = [name.partition("=") for name in comma_names(names)]
        report.reuse(Path(source), {mine: theirs or mine for mine, _, theirs in pairs})
    return tasks, report, configurations


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark as the command line says; return the exit status."""
    args = parser().parse_args(argv)
    _configure_logging()
    try:
        tasks, report, configurations = prepare(args)
    except (UsageError, TaskFileError, ConfigError, ReportError, ValueError) as error:
        print(f"effectiveness: {error}", file=sys.stderr)
        return 2
    print(
        f"effectiveness: {len(tasks)} task(s) x {len(configurations)} configuration(s) "
        f"into {report.path}",
        file=sys.stderr,
    )
    status = 0
    try:
        run_benchmark(tasks, configurations, report)
    except KeyboardInterrupt:
        print(f"\ninterrupted: continue with --resume {report.path}", file=sys.stderr)
        status = 130
    except RunAborted as error:
        print(f"effectiveness: stopped: {error}", file=sys.stderr)
        status = 3
    print(format_report(report.settings, rows_of(report.data)))
    print(f"\nreport: {report.path}")
    return status
