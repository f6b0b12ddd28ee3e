"""`python -m benchmarks.effectiveness.summarize REPORT`: print a saved report's tables."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks.effectiveness.report import Run
from benchmarks.effectiveness.summary import complete, format_report
from benchmarks.harness.cli import summarize_command
from benchmarks.harness.report import load


def _options(parse: argparse.ArgumentParser) -> None:
    parse.add_argument(
        "--tasks-of",
        type=Path,
        metavar="OTHER",
        help="count only the tasks another report finished with every configuration it ran",
    )


def _render(data: dict[str, Any], args: argparse.Namespace) -> str:
    if args.tasks_of is not None:
        other = load(args.tasks_of, "effectiveness")
        tasks = set(complete(other["settings"], [Run.from_json(r) for r in other["rows"]])[0])
        settings = {
            **data["settings"],
            "task_ids": [t for t in data["settings"]["task_ids"] if t in tasks],
        }
        data = {
            **data,
            "settings": settings,
            "rows": [r for r in data["rows"] if r["task"] in tasks],
        }
    return format_report(data)


def main(argv: list[str] | None = None) -> int:
    """Print the tables of a saved report; return the exit status."""
    return summarize_command("effectiveness", _render, argv, _options)


if __name__ == "__main__":
    sys.exit(main())
