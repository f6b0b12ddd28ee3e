"""Plain-text tables and the figures' formats, the same in every benchmark's summary."""

from __future__ import annotations

from collections.abc import Sequence


def columns(header: list[str], body: list[list[str]], left: int = 1) -> list[str]:
    """Lay out a table: the first `left` columns left-aligned, the others right-aligned."""
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    return [
        "  ".join(
            cell.ljust(widths[i]) if i < left else cell.rjust(widths[i])
            for i, cell in enumerate(line)
        ).rstrip()
        for line in [header, *body]
    ]


def mean(values: Sequence[float]) -> float:
    """Return the mean, 0 of nothing."""
    return sum(values) / len(values) if values else 0.0


def share(part: int, whole: int) -> str:
    """Return "3/4 75%", or "-" of nothing."""
    return f"{part}/{whole} {100.0 * part / whole:.0f}%" if whole else "-"


def signed(value: float | None, unit: str = "") -> str:
    """Return "+1.5 unit", or "-" for None."""
    return "-" if value is None else f"{value:+.1f}{unit}"
