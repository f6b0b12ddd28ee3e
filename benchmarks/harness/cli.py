"""What the benchmarks' command lines share.

The common options, the model, the report, the run with its exit status, and the command
that prints a saved report again.

Exit status: 0 when the run finished, 2 on bad input or setup, 3 when it stopped because
cells kept failing, 130 when interrupted (the report keeps every finished cell; `--resume`
continues it).
"""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from benchmarks.harness.configs import ConfigError
from benchmarks.harness.report import Report, ReportError, load
from benchmarks.harness.runner import RunAborted
from critic_loop.nodes.models.discovery import served_model

R = TypeVar("R", bound=Report[Any])


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
        return name.strip(), json.loads(raw)
    except ValueError:
        return name.strip(), raw


def parser(
    prog: str,
    description: str,
    default_out: str,
    configs: Mapping[str, Any] | None = None,
    default_configs: tuple[str, ...] = (),
) -> argparse.ArgumentParser:
    """Return an argument parser with the options every benchmark has."""
    parse = argparse.ArgumentParser(prog=prog, description=description)
    parse.add_argument(
        "--base-url", help="the OpenAI-compatible server (default: $OPENAI_BASE_URL)"
    )
    parse.add_argument("--model", help="openai:NAME for every role (default: the model it serves)")
    if configs is not None:
        parse.epilog = "configurations: " + ", ".join(f"{n} {s}" for n, s in configs.items())
        parse.add_argument(
            "--configs",
            type=comma_names,
            default=list(default_configs),
            help=f"configurations, comma-separated (default: {','.join(default_configs)})",
        )
    parse.add_argument("--out", type=Path, help=f"the report to write (default: {default_out})")
    parse.set_defaults(default_out=Path(default_out))
    parse.add_argument(
        "--resume", type=Path, metavar="REPORT", help="continue this report: skip cells it has"
    )
    parse.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    parse.add_argument(
        "--set",
        type=field_setting,
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a critic-loop Context setting for every configuration (VALUE read as JSON if it "
        "parses), e.g. --set worker_max_tokens=1024",
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


def open_report(kind: type[R], args: argparse.Namespace, settings: dict[str, Any]) -> R:
    """Create the report, or open the one to resume.

    Raises:
        UsageError, ReportError: the files named conflict or cannot be used.
    """
    if args.resume is not None:
        if args.out is not None and args.out != args.resume:
            raise UsageError("--resume writes to the report it continues: leave out --out")
        return kind.resume(args.resume, settings)
    return kind.create(args.out or args.default_out, settings, overwrite=args.overwrite)


def run_command(
    name: str,
    prepare: Callable[[], tuple[Report[Any], Callable[[], object], str]],
    render: Callable[[dict[str, Any]], str],
) -> int:
    """Set a run up with `prepare` (its report, the run, what it will do), run it, print it.

    `render` turns the report's data into the tables printed at the end.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("benchmarks").setLevel(logging.INFO)
    try:
        report, run, what = prepare()
    except (UsageError, ConfigError, ReportError, ValueError) as error:
        print(f"{name}: {error}", file=sys.stderr)
        return 2
    print(f"{name}: {what} into {report.path}", file=sys.stderr)
    status = 0
    try:
        run()
    except KeyboardInterrupt:
        print(f"\ninterrupted: continue with --resume {report.path}", file=sys.stderr)
        status = 130
    except RunAborted as error:
        print(f"{name}: stopped: {error}", file=sys.stderr)
        status = 3
    print(render(report.data))
    print(f"\nreport: {report.path}")
    return status


def chosen_configs(data: dict[str, Any], names: list[str] | None) -> dict[str, Any]:
    """Return the report's data with only the configurations `names` (all when None).

    Raises:
        UsageError: the report has no configuration of a name.
    """
    if not names:
        return data
    unknown = [name for name in names if name not in data["settings"]["configs"]]
    if unknown:
        raise UsageError(f"the report has no configuration {', '.join(unknown)}")
    rows = [row for row in data["rows"] if row["config"] in names]
    return {**data, "settings": {**data["settings"], "configs": names}, "rows": rows}


def summarize_command(
    benchmark: str,
    render: Callable[[dict[str, Any], argparse.Namespace], str],
    argv: list[str] | None,
    options: Callable[[argparse.ArgumentParser], object] = lambda _: None,
) -> int:
    """`python -m benchmarks.BENCHMARK.summarize REPORT [--configs A,B]`: print it again."""
    parse = argparse.ArgumentParser(
        prog=f"python -m benchmarks.{benchmark}.summarize",
        description=f"Print the tables of a saved {benchmark} report again.",
    )
    parse.add_argument("report", type=Path, help="a report written by the benchmark")
    parse.add_argument("--configs", type=comma_names, help="only these configurations")
    options(parse)
    args = parse.parse_args(argv)
    try:
        data = chosen_configs(load(args.report, benchmark), args.configs)
        print(render(data, args))
    except (ReportError, UsageError) as error:
        print(f"summarize: {error}", file=sys.stderr)
        return 2
    return 0
