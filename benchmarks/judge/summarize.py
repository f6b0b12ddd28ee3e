"""`python -m benchmarks.judge.summarize REPORT`: print a saved judge report's tables."""

# ruff: noqa: T201 - a command line: its job is to print

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.judge.report import ReportError, load, rows_of
from benchmarks.judge.summary import format_report, summary_json


def main(argv: list[str] | None = None) -> int:
    """Print the tables of a report (or its figures as JSON); return the exit status."""
    parse = argparse.ArgumentParser(
        prog="python -m benchmarks.judge.summarize",
        description="Re-print the tables of a saved judge benchmark report.",
    )
    parse.add_argument("report", type=Path, help="a report written by the benchmark")
    parse.add_argument("--configs", help="only these configurations, comma-separated")
    parse.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parse.parse_args(argv)
    try:
        data = load(args.report)
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
    rows = rows_of(data)
    if args.json:
        print(json.dumps(summary_json(settings, rows), indent=1))
    else:
        print(format_report(settings, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
