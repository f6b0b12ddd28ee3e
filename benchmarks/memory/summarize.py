"""`python -m benchmarks.memory.summarize REPORT`: print a saved report's tables again."""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.memory.report import ReportError, load, rows_of
from benchmarks.memory.summary import format_report


def main(argv: list[str] | None = None) -> int:
    """Print the tables of the report named on the command line; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.memory.summarize",
        description="Print the tables of a saved memory benchmark report.",
    )
    parser.add_argument("report", type=Path, help="the report file (JSON)")
    args = parser.parse_args(argv)
    try:
        data = load(args.report)
    except ReportError as error:
        print(f"memory: {error}", file=sys.stderr)
        return 2
    print(format_report(data, rows_of(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
