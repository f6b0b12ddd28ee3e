"""The command: `python -m benchmarks.performance [--quick] [--out report.json] [--only NAME,...]`.

Runs the chosen scenarios in order, prints the table (figure, value, baseline, target,
met?) and writes the JSON report. The exit status is 0 whether or not targets are met; it
is non-zero only when a scenario could not run.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.performance.report import Figure, Report, print_table, write_json
from benchmarks.performance.scenarios import SCENARIOS
from benchmarks.performance.settings import FULL, QUICK, Settings, with_overrides

logger = logging.getLogger("benchmarks.performance")

DEFAULT_OUT = Path("benchmarks/performance/report.json")
"""Where the JSON report goes unless `--out` says otherwise (ignored by git)."""


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.performance",
        description="critic-loop's performance benchmarks: ratios against same-run baselines.",
    )
    parser.add_argument("--quick", action="store_true", help="few repeats (for CI; minutes)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"JSON report path (default {DEFAULT_OUT})"
    )
    parser.add_argument(
        "--only",
        default="",
        help=f"comma-separated scenarios to run (default: all): {', '.join(SCENARIOS)}",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="change one setting (see benchmarks/performance/settings.py), repeatable",
    )
    return parser.parse_args(argv)


def chosen(only: str) -> list[str]:
    """Return the scenario names `--only` names, in the suite's order.

    Raises:
        SystemExit: a name is not a scenario.
    """
    if not only.strip():
        return list(SCENARIOS)
    names = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [name for name in names if name not in SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown scenario(s) {unknown}; choose from {list(SCENARIOS)}")
    return [name for name in SCENARIOS if name in names]


def run(names: list[str], settings: Settings, quick: bool) -> Report:
    """Run the scenarios `names` with `settings`; return the report."""
    report = Report(settings={"quick": quick, "scenarios": names, **settings.as_json()})
    durations: dict[str, float] = {}
    load: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="critic-loop-bench-") as scratch:
        for name in names:
            logger.info("running %s", name)
            start = time.perf_counter()
            load[name] = [os.getloadavg()[0]]
            try:
                report.figures += SCENARIOS[name](settings, Path(scratch), report.details)
            except Exception as error:  # one broken scenario must not hide the others
                logger.exception("scenario %s failed", name)
                report.figures.append(
                    Figure(name, "scenario", None, "", "-", skipped=f"failed: {error!r}"[:300])
                )
            durations[name] = time.perf_counter() - start
            load[name].append(os.getloadavg()[0])
    report.details["scenario_seconds"] = durations
    report.details["load_average"] = load  # the machine's 1-minute load, before and after
    return report


def main(argv: list[str] | None = None) -> int:
    """Run the suite; return the exit status (1 if a scenario failed to run)."""
    arguments = parse_arguments(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for noisy in ("httpx", "httpx2", "openai", "langchain_openai"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    settings = with_overrides(QUICK if arguments.quick else FULL, arguments.set)
    report = run(chosen(arguments.only), settings, arguments.quick)
    write_json(report, arguments.out)
    print_table(report.figures)
    sys.stdout.write(f"\nreport: {arguments.out}\n")
    failed = any(figure.name == "scenario" and figure.skipped for figure in report.figures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
