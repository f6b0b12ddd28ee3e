"""`python -m benchmarks.effectiveness`: does the loop beat one shot?

It checks everything it can before the first model call (the task files, the
configurations against the installed critic_loop, the report file), runs the cells into
the report, and prints the tables. Progress goes to stderr as each cell finishes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from benchmarks.effectiveness.configs import (
    BASELINE,
    CONFIGS,
    DEFAULT_CONFIGS,
    OWNED,
    shared_settings,
)
from benchmarks.effectiveness.grading import check_task
from benchmarks.effectiveness.report import EffectivenessReport
from benchmarks.effectiveness.run import run_cell
from benchmarks.effectiveness.summary import format_report
from benchmarks.effectiveness.taskset import KINDS, QUICK_IDS, TIERS, Task, load_tasks, select_tasks
from benchmarks.harness import cli
from benchmarks.harness.configs import resolve, shared
from benchmarks.harness.report import describe
from benchmarks.harness.runner import plan, run_cells

DEFAULT_ROUNDS = 4
QUICK_ROUNDS = 2


def parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    parse = cli.parser(
        "python -m benchmarks.effectiveness",
        "Does the critic loop beat one shot? Runs configurations of critic-loop on a tier's "
        "coding, writing or judged writing tasks against an OpenAI-compatible server and "
        f"reports what each solves against {BASELINE}, and at what cost.",
        "effectiveness-report.json",
        CONFIGS,
        DEFAULT_CONFIGS,
    )
    parse.add_argument(
        "--tier", choices=sorted(TIERS), default="project", help="the task set (default: project)"
    )
    parse.add_argument(
        "--tasks", type=cli.comma_names, help=f"task kinds (default: {','.join(KINDS)})"
    )
    chosen = parse.add_mutually_exclusive_group()
    chosen.add_argument("--limit", type=int, help="the first N tasks of each kind")
    chosen.add_argument("--ids", type=cli.comma_names, help="these tasks, comma-separated ids")
    chosen.add_argument(
        "--quick", action="store_true", help=f"the tier's 3 smoke tasks, {QUICK_ROUNDS} rounds"
    )
    parse.add_argument("--rounds", type=int, help=f"round cap (default {DEFAULT_ROUNDS})")
    parse.add_argument(
        "--reuse",
        metavar="REPORT:CONFIGS",
        help="copy another report's rows of these configurations (NAME=OLD takes this run's "
        "NAME from its OLD) instead of running them; it must have run them with the same "
        "settings, and you vouch that critic-loop's code for them is unchanged",
    )
    parse.add_argument("--seed", type=int, help="shuffle each kind's tasks before --limit")
    parse.add_argument("--jobs", type=int, default=1, help="cells run side by side (default 1)")
    parse.add_argument("--tasks-dir", type=Path, help="a task set's folder instead of --tier")
    return parse


def choose_tasks(args: argparse.Namespace) -> list[Task]:
    """Load and select the run's tasks, and check critic_loop accepts their criteria.

    Raises:
        UsageError, TaskFileError, ValueError: the selection or the task files are unusable.
    """
    if (args.quick or args.ids) and args.tasks:
        raise cli.UsageError("--quick and --ids choose the tasks themselves: leave out --tasks")
    unknown = [kind for kind in args.tasks or () if kind not in KINDS]
    if unknown:
        raise cli.UsageError(f"unknown task kind {', '.join(unknown)}; known: {', '.join(KINDS)}")
    folder = args.tasks_dir or TIERS[args.tier]
    every = [task for kind in KINDS for task in load_tasks(kind, folder)]
    ids = list(QUICK_IDS[args.tier]) if args.quick else args.ids
    if ids is not None:
        tasks = select_tasks(every, ids=ids)
    else:
        kinds = [kind for kind in KINDS if kind in (args.tasks or KINDS)]
        tasks = select_tasks(every, kinds=kinds, limit=args.limit, seed=args.seed)
    if not tasks:
        raise cli.UsageError(f"no tasks selected (from {folder})")
    for task in tasks:
        check_task(task)
    return tasks


def prepare(args: argparse.Namespace) -> tuple[EffectivenessReport, Callable[[], object], str]:
    """Check the command line and set the run up.

    Raises:
        UsageError, TaskFileError, ConfigError, ReportError, ValueError: bad input.
    """
    tasks = choose_tasks(args)
    model, base_url = cli.choose_model(args)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    extra = dict(args.set)
    common = shared(
        extra, OWNED, "--model, --base-url and --rounds", **shared_settings(model, base_url, rounds)
    )
    configurations = resolve(args.configs, common, CONFIGS)
    ids = [task.id for task in tasks]
    settings = describe(
        model,
        base_url,
        extra,
        configurations,
        CONFIGS,
        ids,
        rounds=rounds,
        seed=args.seed,
        tier=args.tier if args.tasks_dir is None else str(args.tasks_dir),
    )
    report = cli.open_report(EffectivenessReport, args, settings)
    if args.reuse:
        source, _, names = args.reuse.rpartition(":")
        if not source or not cli.comma_names(names):
            raise cli.UsageError("--reuse takes REPORT:CONFIG[,NAME=OLD...]")
        pairs = [name.partition("=") for name in cli.comma_names(names)]
        report.reuse(Path(source), {mine: theirs or mine for mine, _, theirs in pairs})
    cells = plan([tasks], configurations, report)
    what = f"{len(tasks)} task(s) x {len(configurations)} configuration(s), {len(cells)} to run"
    return report, lambda: run_cells(cells, run_cell, report, jobs=args.jobs), what


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark as the command line says; return the exit status."""
    args = parser().parse_args(argv)
    return cli.run_command("effectiveness", lambda: prepare(args), format_report)
