"""The benchmark report: figures, the JSON file with raw samples, and the printed table.

A `Figure` is one line of the table: a value (a ratio or a count), the baseline it is
measured against (in the same run), the target from the issue, and whether it is met.
Targets are reported, never enforced: the command's exit status does not depend on them.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

Comparison = Literal["<=", "<", ">=", "=="]


@dataclass
class Figure:
    """One measured figure: a ratio or count against a baseline, and its target."""

    scenario: str
    name: str
    value: float | None
    unit: str
    baseline: str
    target: float | None = None
    comparison: Comparison = "<="
    samples: dict[str, list[float]] = field(default_factory=dict)
    medians: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    skipped: str | None = None
    interval: tuple[float, float] | None = None
    """A 95% bootstrap interval of the value, where it is a median of repeats."""

    @property
    def met(self) -> bool | None:
        """Whether the value meets the target (None when there is no target or no value)."""
        if self.target is None or self.value is None or math.isnan(self.value):
            return None
        if self.comparison == "<=":
            return self.value <= self.target
        if self.comparison == "<":
            return self.value < self.target
        if self.comparison == ">=":
            return self.value >= self.target
        return self.value == self.target

    def target_text(self) -> str:
        """Return the target as the table shows it."""
        if self.target is None:
            return "-"
        return f"{self.comparison} {_number(self.target, self.unit)}"

    def value_text(self) -> str:
        """Return the value as the table shows it."""
        if self.skipped is not None:
            return "skipped"
        if self.value is None:
            return "-"
        text = _number(self.value, self.unit)
        if self.interval is not None:
            low, high = (_number(bound, self.unit) for bound in self.interval)
            text += f" [{low}, {high}]"
        return text

    def as_json(self) -> dict[str, Any]:
        """Return the figure as JSON-ready data, with `met` included."""
        return {**asdict(self), "met": self.met}


def _number(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "%":
        return f"{value:.1f}%"
    if unit in ("count", "runs"):
        return f"{value:.0f}"
    return f"{value:.3g} {unit}".strip()


@dataclass
class Report:
    """Everything one run of the suite measured, with the settings and where it ran."""

    settings: dict[str, Any]
    figures: list[Figure] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    started: str = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    )

    def as_json(self) -> dict[str, Any]:
        """Return the report as JSON-ready data."""
        return {
            "date": self.started,
            "git_commit": git_commit(),
            "machine": machine(),
            "settings": self.settings,
            "figures": [figure.as_json() for figure in self.figures],
            "details": self.details,
        }


def git_commit() -> str | None:
    """Return the commit the benchmark code is at (with `+dirty` for local changes)."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def machine() -> dict[str, Any]:
    """Describe the machine: cores, Python, platform."""
    return {
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }


def write_json(report: Report, path: Path) -> None:
    """Write the report as JSON (NaN written as null)."""
    text = json.dumps(_finite(report.as_json()), indent=2, default=str)
    path.write_text(text + "\n")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


DIAGNOSTIC_SCENARIOS = ("decomposition", "suspects", "threads", "what if", "profile")
"""Scenarios whose figures explain the others: printed in a table of their own."""


def render_table(figures: list[Figure]) -> str:
    """Render the figures as text: the targets' table, then the diagnostics' table."""
    diagnostic = [f for f in figures if f.scenario.startswith(DIAGNOSTIC_SCENARIOS)]
    measured = [f for f in figures if f not in diagnostic]
    parts = [_table(measured)] if measured else []
    if diagnostic:
        parts.append("where the overhead goes:\n" + _table(diagnostic))
    return "\n\n".join(parts)


def _table(figures: list[Figure]) -> str:
    """Render figures as a plain-text table: figure, value, baseline, target, met?, notes."""
    rows = [("figure", "value", "baseline", "target", "met?")]
    for figure in figures:
        met = {True: "yes", False: "NO", None: "-"}[figure.met]
        if figure.skipped is not None:
            met = "skip"
        rows.append(
            (
                f"{figure.scenario}: {figure.name}",
                figure.value_text(),
                figure.baseline,
                figure.target_text(),
                met,
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(5)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    notes = [
        f"  [{figure.scenario}: {figure.name}] {figure.skipped or note}"
        for figure in figures
        for note in ([figure.skipped] if figure.skipped else figure.notes)
    ]
    return "\n".join([line.rstrip() for line in lines] + (["notes:", *notes] if notes else []))


def print_table(figures: list[Figure], stream: TextIO | None = None) -> None:
    """Write the table to `stream` (standard output by default): the suite's only printer."""
    (stream or sys.stdout).write(render_table(figures) + "\n")
