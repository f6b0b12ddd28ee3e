"""`python -m benchmarks.judge.summarize REPORT`: print a saved judge report's tables."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from benchmarks.harness.cli import summarize_command
from benchmarks.judge.summary import format_report, summary_json


def _render(data: dict[str, Any], args: argparse.Namespace) -> str:
    return json.dumps(summary_json(data), indent=1) if args.json else format_report(data)


def main(argv: list[str] | None = None) -> int:
    """Print the tables (or figures) of a saved report; return the exit status."""
    return summarize_command(
        "judge",
        _render,
        argv,
        lambda parse: parse.add_argument("--json", action="store_true", help="figures as JSON"),
    )


if __name__ == "__main__":
    sys.exit(main())
