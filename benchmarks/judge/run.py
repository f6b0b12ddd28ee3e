"""One cell: a judge configuration grades one labelled artifact, as calibrate does.

The row keeps each criterion's decision (or that there was no verdict) and the cost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from benchmarks.harness.report import Report, Row
from benchmarks.harness.runner import Cell
from benchmarks.judge.labelset import as_line
from critic_loop.grading import critique_artifact


@dataclass(kw_only=True)
class Grade(Row):
    """What one judge configuration decided on one artifact (`task`: the case's id)."""

    kind: str
    decisions: dict[str, bool | None] = field(default_factory=dict)  # None: no verdict
    evidence: dict[str, str] = field(default_factory=dict)
    verdict: bool = False  # whether the critic gave a verdict at all
    no_verdict: str | None = None  # why not (its last rejected answer)
    calls: int = 0  # critic model calls (retries and samples included)

    @property
    def model_calls(self) -> int:
        """Every model call the cell made."""
        return self.calls

    def describe(self) -> str:
        """Say in one line what the cell did, for the progress log."""
        agreed = self.no_verdict or f"{len(self.decisions)} criteria decided"
        return f"{agreed} ({self.calls} call(s), {self.wall_seconds:.0f} s)"


class JudgeReport(Report[Grade]):
    """A judge benchmark report file."""

    BENCHMARK = "judge"
    ROW = Grade


def grade_cell(cell: Cell) -> Grade:
    """Have one configuration's critic grade one artifact; a server failure goes in the row."""
    case = cell.task
    row = Grade(task=case.id, kind=case.kind, config=cell.configuration.name)
    started = time.perf_counter()
    try:
        critique = critique_artifact(
            case.artifact, as_line(case)["rubric"], cell.configuration.context()
        )
    except Exception as error:  # a server failure: kept in the row, run again on --resume
        row.error = f"{type(error).__name__}: {error}"[:2000]
        return row
    finally:
        row.wall_seconds = time.perf_counter() - started
    row.calls = critique.attempts
    row.input_tokens, row.output_tokens = critique.usage.input_tokens, critique.usage.output_tokens
    row.tokens_estimated = critique.usage.estimated
    if critique.verdict is None:
        row.no_verdict = critique.error or "no verdict"
        row.decisions = {pair.id: None for pair in case.pairs}
        return row
    row.verdict = True
    row.decisions = {r.criterion_id: r.passed for r in critique.verdict.results}
    row.evidence = {r.criterion_id: r.evidence for r in critique.verdict.results}
    return row
