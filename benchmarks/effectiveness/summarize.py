"""`python -m benchmarks.effectiveness.summarize REPORT`: print a saved report's tables."""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.effectiveness.report import ReportError, load, rows_of
from benchmarks.effectiveness.summary import format_report, summarize


def main(argv: list[str] | None = None) -> int:
    """Print the table and per-task matrix of a report; return the exit status."""
    parse = argparse.ArgumentParser(
        prog="python -m benchmarks.effectiveness.summarize",
        description="Re-print the tables of a saved effectiveness report.",
    )
    parse.add_argument("report", type=Path, help="a report written by the benchmark")
    parse.add_argument(
        "--configs",
        help="compare only these configurations, comma-separated (the tasks all of them ran)",
    )
    parse.add_argument(
        "--tasks-of",
        type=Path,
        metavar="OTHER",
        help="count only the tasks another report finished with every configuration it ran "
        "(to compare two reports on the same tasks)",
    )
    args = parse.parse_args(argv)
    try:
        data = load(args.report)
        other = load(args.tasks_of) if args.tasks_of else None
    except ReportError as error:
        print(f"summarize: {error}", file=sys.stderr)
        return 2
    settings = data["settings"]
    if args.configs:
        chosen = [name.strip() for name in args.configs.split(",") if name.strip()]
        unknown = [name for name in chosen if name not in settings["configs"]]
        if unknown:
            print(
                f"summarize: the report has no configuration {', '.join(unknown)}", file=sys.stderr
            )
            return 2
        settings = {**settings, "configs": chosen}
    rows = [row for row in rows_of(data) if row.config in settings["configs"]]
    if other is not None:
        tasks = set(summarize(other["settings"], rows_of(other)).tasks)
        rows = [row for row in rows if row.task in tasks]
        settings = {**settings, "task_ids": [t for t in settings["task_ids"] if t in tasks]}
    print(format_report(settings, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
