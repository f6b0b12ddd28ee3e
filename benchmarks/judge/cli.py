"""`python -m benchmarks.judge`: how often is the critic's judge right?

Checks what it can before the first model call, grades the cells into the report, and
prints the table; progress goes to stderr.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from benchmarks.harness import cli
from benchmarks.harness.configs import resolve
from benchmarks.harness.report import describe
from benchmarks.harness.runner import plan, run_cells
from benchmarks.judge.cases import QUICK_IDS
from benchmarks.judge.configs import CONFIGS, DEFAULT_CONFIGS, shared_settings, table_for
from benchmarks.judge.labelset import select
from benchmarks.judge.run import JudgeReport, grade_cell
from benchmarks.judge.summary import format_report


def parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    parse = cli.parser(
        "python -m benchmarks.judge",
        "How often is the critic's judge right? Grades labelled artifact-criterion pairs with "
        "judge configurations; reports agreement, kappa, false pass/fail, verdicts and cost.",
        "judge-report.json",
        CONFIGS,
        DEFAULT_CONFIGS,
    )
    chosen = parse.add_mutually_exclusive_group()
    chosen.add_argument("--ids", type=cli.comma_names, help="these artifacts, comma-separated ids")
    chosen.add_argument(
        "--quick", action="store_true", help=f"{', '.join(QUICK_IDS)} only (a smoke run for CI)"
    )
    chosen.add_argument("--held-out", action="store_true", help="the held-out set instead")
    # a busy shared server answers requests one after another: more only queues more
    parse.add_argument(
        "--concurrency", type=int, default=1, metavar="N", help="grade up to N artifacts at once"
    )
    return parse


def prepare(args: argparse.Namespace) -> tuple[JudgeReport, Callable[[], object], str]:
    """Check the command line and set the run up.

    Raises:
        UsageError, ConfigError, ReportError, ValueError: bad input.
    """
    cases = select(args.ids, quick=args.quick, held_out=args.held_out)
    model, base_url = cli.choose_model(args)
    extra = dict(args.set)
    table = table_for(model)
    configurations = resolve(args.configs, shared_settings(model, base_url, extra), table)
    settings = describe(model, base_url, extra, configurations, table, [c.id for c in cases])
    report = cli.open_report(JudgeReport, args, settings)
    report.settings["configs"] = [c.name for c in configurations]  # the table shows this run's
    cells = plan([cases], configurations, report)
    pairs = sum(len(case.pairs) for case in cases)
    what = f"{len(cases)} artifact(s), {pairs} labelled pair(s) x {len(configurations)} config(s)"
    return report, lambda: run_cells(cells, grade_cell, report, jobs=args.concurrency), what


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark as the command line says; return the exit status."""
    args = parser().parse_args(argv)
    return cli.run_command("judge", lambda: prepare(args), format_report)
