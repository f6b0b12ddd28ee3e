"""The effectiveness report: one row per (task, configuration), in the harness's report file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmarks.effectiveness.judged import DEGENERATE_SHARE
from benchmarks.harness.report import Report, Row


@dataclass(kw_only=True)
class Run(Row):
    """What one configuration did on one task."""

    kind: str
    visible_tests: int | None = None
    """A coding task's visible tests (0: the loop checks syntax only); None for writing."""
    solved: bool = False
    outcome: str | None = None
    outcome_reason: str | None = None
    rounds: int = 0
    """Graded rounds (rows of 2026-11-30 counted critiques, each candidate apart)."""
    drafts: int = 0
    worker_calls: int = 0
    """Worker model calls, repeated requests after a malformed reply included."""
    critic_calls: int = 0
    """Every other model call: judges and their retries (deterministic checks make none)."""
    final_round: int | None = None
    final: str | None = None
    """The result graded: the run's `final` draft."""
    failing: list[str] = field(default_factory=list)
    """The grader's failing criteria ("tests" for coding tasks)."""
    grade_evidence: str = ""
    draft_grades: list[dict[str, Any]] = field(default_factory=list)
    """Every draft: round, candidate, whether the loop's checks passed it (`visible`), whether
    the hidden grader solves it (`solved`), and its agreement `support` (1: not compared)."""
    judged_met: dict[str, bool] = field(default_factory=dict)
    """Judged tasks: each judged criterion, and whether its hidden grader passes `final`."""
    declared_passed: list[str] = field(default_factory=list)
    """Judged tasks: the judged criteria the run declared `final` passes (its final verdict)."""
    first_chars: int | None = None
    """The length of the run's first draft, in characters."""

    @property
    def false_passes(self) -> list[str]:
        """The judged criteria declared passed on `final` that its hidden grader fails."""
        return [c for c in self.declared_passed if not self.judged_met.get(c, False)]

    @property
    def degenerate(self) -> bool:
        """Whether `final` fails its grading at under 40% of the first draft's length."""
        shrunk = len(self.final or "") < DEGENERATE_SHARE * (self.first_chars or 0)
        return self.error is None and shrunk and not self.solved

    @property
    def visible_pass(self) -> bool:
        """Whether the loop's own checks passed the result (the run ended `passed`).

        A judged task's one-shot run, whose judge was never asked, passed nothing visible.
        """
        judged = self.kind != "judged" or bool(self.declared_passed)
        return self.error is None and self.outcome == "passed" and judged

    @property
    def some_draft_solved(self) -> bool:
        """Whether any draft of the run passed the hidden grader (the result or another)."""
        return self.solved or any(grade["solved"] for grade in self.draft_grades)

    @property
    def model_calls(self) -> int:
        """Every model call the cell made."""
        return self.worker_calls + self.critic_calls

    def describe(self) -> str:
        """Say in one line what the cell did, for the progress log."""
        verdict = "solved" if self.solved else "not solved"
        return (
            f"{verdict}; loop {self.outcome} after {self.rounds} round(s), {self.model_calls} "
            f"model call(s), {self.tokens} tokens, {self.wall_seconds:.1f} s"
        )


class EffectivenessReport(Report[Run]):
    """An effectiveness report file."""

    BENCHMARK = "effectiveness"
    ROW = Run
    COMPARED = ("model", "base_url", "rounds", "set")
