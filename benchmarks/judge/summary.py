"""The judge report's figures and tables, over the artifacts every configuration graded.

Per configuration: agreement and Cohen's kappa over the decided pairs, false pass/fail
rates, verdicts (artifacts given one), and calls, tokens and seconds per artifact graded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.harness.tables import share
from benchmarks.judge.cases import CASES
from benchmarks.judge.held_out import HELD_OUT
from benchmarks.judge.run import Grade
from critic_loop.cli.agreement import Agreement

EVERY_CASE = (*CASES, *HELD_OUT)
LABELS = {case.id: {pair.id: pair.label for pair in case.pairs} for case in EVERY_CASE}
TRAPS = {(case.id, pair.id): pair.trap for case in EVERY_CASE for pair in case.pairs}


@dataclass(frozen=True)
class Figures:
    """One configuration's figures over the compared artifacts."""

    config: str
    agreement: Agreement
    artifacts: int
    verdicts: int
    pairs: int
    calls: int
    tokens: int
    seconds: float

    def as_json(self) -> dict[str, Any]:
        """Return the figures as JSON data."""
        return {
            "config": self.config,
            **self.agreement.as_json(),
            "artifacts": self.artifacts,
            "verdicts": self.verdicts,
            "pairs": self.pairs,
            "calls_per_grade": self.calls / self.artifacts if self.artifacts else None,
            "tokens_per_grade": self.tokens / self.artifacts if self.artifacts else None,
            "seconds_per_grade": self.seconds / self.artifacts if self.artifacts else None,
            "wall_seconds": self.seconds,
        }


def compared(rows: Sequence[Grade], configs: Sequence[str]) -> list[Grade]:
    """Keep the rows of the artifacts every configuration has a finished row for."""
    finished = {(row.task, row.config) for row in rows if row.error is None}
    keep = {case.id for case in EVERY_CASE if all((case.id, c) in finished for c in configs)}
    return [row for row in rows if row.task in keep and row.config in configs and not row.error]


def pairs_of(row: Grade, trap: str | None = None) -> list[tuple[bool, bool]]:
    """Return the (label, decision) pairs of a row the critic decided (of one trap, if given)."""
    return [
        (label, bool(row.decisions[criterion]))
        for criterion, label in LABELS.get(row.task, {}).items()
        if row.decisions.get(criterion) is not None and trap in (None, TRAPS[(row.task, criterion)])
    ]


def figures(rows: Sequence[Grade], config: str) -> Figures:
    """Sum up one configuration's rows."""
    mine = [row for row in rows if row.config == config]
    return Figures(
        config=config,
        agreement=Agreement.of(pair for row in mine for pair in pairs_of(row)),
        artifacts=len(mine),
        verdicts=sum(row.verdict for row in mine),
        pairs=sum(len(LABELS.get(row.task, {})) for row in mine),
        calls=sum(row.calls for row in mine),
        tokens=sum(row.tokens for row in mine),
        seconds=sum(row.wall_seconds for row in mine),
    )


def table(all_figures: Sequence[Figures]) -> list[str]:
    """Lay the figures out as a plain-text table."""
    lines = [
        f"{'config':<20} {'verdicts':>9} {'agree':>6} {'kappa':>6} {'false pass':>13} "
        f"{'false fail':>13} {'calls/grade':>11} {'tokens/grade':>12} {'s/grade':>8} {'wall s':>7}"
    ]
    for f in all_figures:
        a = f.agreement
        kappa = "-" if a.kappa is None else f"{a.kappa:.2f}"
        agree = "-" if a.accuracy is None else f"{100 * a.accuracy:.0f}%"
        per = max(f.artifacts, 1)
        lines.append(
            f"{f.config:<20} {f.verdicts:>4}/{f.artifacts:<4} {agree:>6} "
            f"{kappa:>6} {share(a.false_pass, a.human_fail):>13} "
            f"{share(a.false_fail, a.human_pass):>13} {f.calls / per:>11.1f} "
            f"{f.tokens / per:>12.0f} {f.seconds / per:>8.1f} {f.seconds:>7.0f}"
        )
    return lines


def by_trap(rows: Sequence[Grade], configs: Sequence[str]) -> list[str]:
    """Agreement per kind of criterion (count, absence, language, ...), per configuration."""
    lines = [f"{'agreement by trap':<18}" + "".join(f"{c[:18]:>20}" for c in configs)]
    for trap in sorted(set(TRAPS.values())):
        cells = []
        for config in configs:
            found = [p for row in rows if row.config == config for p in pairs_of(row, trap)]
            agreed = sum(label == decision for label, decision in found)
            cells.append(f"{agreed}/{len(found)}" if found else "-")
        lines.append(f"{trap:<18}" + "".join(f"{cell:>20}" for cell in cells))
    return lines


def loaded(data: dict[str, Any]) -> tuple[list[Grade], list[str], list[Grade]]:
    """Return a report's rows, its configurations, and the rows compared."""
    rows = [Grade.from_json(row) for row in data["rows"]]
    configs = list(data["settings"]["configs"])
    return rows, configs, compared(rows, configs)


def format_report(data: dict[str, Any]) -> str:
    """Return the report's header, table and per-trap agreement as text."""
    settings = data["settings"]
    rows, configs, kept = loaded(data)
    artifacts = len({row.task for row in kept})
    pairs = sum(len(LABELS.get(case, {})) for case in {row.task for row in kept})
    lines = [
        f"critic-loop judge benchmark: {settings['model']} at {settings['base_url']}; "
        f"{artifacts} artifact(s), {pairs} labelled pair(s) compared",
        "",
        *table([figures(kept, config) for config in configs]),
        "",
        *by_trap(kept, configs),
    ]
    left_out = sorted({row.task for row in rows} - {row.task for row in kept})
    if left_out:
        lines += ["", f"not yet graded by every configuration: {', '.join(left_out)}"]
    return "\n".join(lines)


def summary_json(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Return every configuration's figures as JSON data."""
    _, configs, kept = loaded(data)
    return [figures(kept, config).as_json() for config in configs]
