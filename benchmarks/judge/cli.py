"""The command line: `python -m benchmarks.judge --base-url URL --model openai:NAME`.

It checks what it can before the first model call (the configurations against the
installed critic_loop, the report file), grades the pairs into the report, and prints the
table. Progress goes to stderr, one line per (artifact, configuration) graded.

Exit status: 0 when the run finished, 2 on bad input or setup, 3 when it stopped because
pairs kept failing, 130 when interrupted (the report keeps every finished pair; `--resume`
continues it).
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.effectiveness.cli import comma_names, field_setting
from benchmarks.effectiveness.configs import ConfigError, resolve
from benchmarks.judge.cases import QUICK_IDS, Case
from benchmarks.judge.configs import CONFIGS, DEFAULT_CONFIGS, shared_settings, table_for
from benchmarks.judge.labelset import select
from benchmarks.judge.report import Report, ReportError, build_settings, rows_of
from benchmarks.judge.runner import RunAborted, run_benchmark
from benchmarks.judge.summary import format_report
from critic_loop.nodes.models.discovery import served_model

DEFAULT_OUT = Path("judge-report.json")


class UsageError(ValueError):
    """The command line asks for something impossible; the message says what."""


def parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    known = ", ".join(f"{name} {settings}" for name, settings in CONFIGS.items())
    parse = argparse.ArgumentParser(
        prog="python -m benchmarks.judge",
        description=(
            "How often is the critic's judge right? Grades the benchmark's labelled "
            "artifact-criterion pairs with several judge configurations against an "
            "OpenAI-compatible server and reports agreement, Cohen's kappa, false-pass and "
            "false-fail rates, verdict coverage, and calls, tokens and time per grade."
        ),
        epilog=f"configurations: {known}",
    )
    parse.add_argument(
        "--base-url", help="the OpenAI-compatible server (default: $OPENAI_BASE_URL)"
    )
    parse.add_argument("--model", help="openai:NAME, the critic (default: the model it serves)")
    chosen = parse.add_mutually_exclusive_group()
    chosen.add_argument("--ids", type=comma_names, help="these artifacts, comma-separated ids")
    chosen.add_argument(
        "--quick", action="store_true", help=f"{', '.join(QUICK_IDS)} only (a smoke run for CI)"
    )
    chosen.add_argument(
        "--held-out",
        action="store_true",
        help="the held-out set instead (48 pairs that took no part in choosing the defaults)",
    )
    parse.add_argument(
        "--configs",
        type=comma_names,
        default=list(DEFAULT_CONFIGS),
        help=f"configurations, comma-separated (default: {','.join(DEFAULT_CONFIGS)})",
    )
    parse.add_argument("--out", type=Path, help=f"the report to write (default: {DEFAULT_OUT})")
    parse.add_argument(
        "--resume", type=Path, metavar="REPORT", help="continue this report: skip pairs it has"
    )
    parse.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    parse.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="grade up to N artifacts at once (default 1; a busy shared server answers "
        "requests one after another, so more only queues more of them)",
    )
    parse.add_argument(
        "--set",
        type=field_setting,
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a critic-loop Context setting for every configuration (VALUE read as JSON "
        "if it parses), e.g. --set critic_attempts=2",
    )
    return parse


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


def prepare(args: argparse.Namespace) -> tuple[list[Case], Report, list[Any]]:
    """Check the command line and set the run up: artifacts, report and configurations.

    Raises:
        UsageError, ConfigError, ReportError, ValueError: bad input.
    """
    cases = select(args.ids, quick=args.quick, held_out=args.held_out)
    model, base_url = choose_model(args)
    extra = dict(args.set)
    table = table_for(model)
    configurations = resolve(args.configs, shared_settings(model, base_url, extra), table)
    settings = build_settings(
        model=model,
        base_url=base_url,
        configurations=configurations,
        own_settings={name: table[name] for name in args.configs},
        case_ids=[case.id for case in cases],
        extra=extra,
    )
    if args.resume is not None:
        if args.out is not None and args.out != args.resume:
            raise UsageError("--resume writes to the report it continues: leave out --out")
        report = Report.resume(args.resume, settings)
    else:
        report = Report.create(args.out or DEFAULT_OUT, settings, overwrite=args.overwrite)
    return cases, report, configurations


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark as the command line says; return the exit status."""
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("benchmarks").setLevel(logging.INFO)
    try:
        cases, report, configurations = prepare(args)
    except (UsageError, ConfigError, ReportError, ValueError) as error:
        print(f"judge: {error}", file=sys.stderr)
        return 2
    pairs = sum(len(case.pairs) for case in cases)
    print(
        f"judge: {len(cases)} artifact(s), {pairs} labelled pair(s) x {len(configurations)} "
        f"configuration(s) into {report.path}",
        file=sys.stderr,
    )
    status = 0
    try:
        run_benchmark(cases, configurations, report, args.concurrency)
    except KeyboardInterrupt:
        print(f"\ninterrupted: continue with --resume {report.path}", file=sys.stderr)
        status = 130
    except RunAborted as error:
        print(f"judge: stopped: {error}", file=sys.stderr)
        status = 3
    settings = {**report.settings, "configs": [c.name for c in configurations]}
    print(format_report(settings, rows_of(report.data)))
    print(f"\nreport: {report.path}")
    return status
