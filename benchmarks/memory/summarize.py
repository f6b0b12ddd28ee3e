"""`python -m benchmarks.memory.summarize REPORT`: print a saved report's tables again."""

from __future__ import annotations

import sys

from benchmarks.harness.cli import summarize_command
from benchmarks.memory.summary import format_report


def main(argv: list[str] | None = None) -> int:
    """Print the tables of a saved report; return the exit status."""
    return summarize_command("memory", lambda data, _: format_report(data), argv)


if __name__ == "__main__":
    sys.exit(main())
