"""One cell: a task of a repeat's sequence, memory off or on, through critic-loop's `run_loop`.

Each (repeat, mode) sequence has its own SQLite database (checkpoints and rules) beside the
report, which starts empty: the memory-on sequence learns in its store as it goes and
recalls from it; the memory-off sequence never reads or writes rules. After every memory-on
task the rules its store holds are copied into the report (`rules`), so the report says what
was learned, from which task, and where each rule was recalled.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self
from uuid import uuid4

from benchmarks.harness.report import Report, ReportError, Row
from benchmarks.harness.runner import Cell
from critic_loop import LoopState, run_loop
from critic_loop.persistence import open_persistence
from critic_loop.state.rules import Rule, rules_namespace

MODES = {"off": {"memory": False}, "on": {"memory": True}}
"""The configurations: memory off, then memory on, for every task of the sequence."""


@dataclass(kw_only=True)
class Step(Row):
    """What one mode (`config`) did on one task of one repeat's sequence."""

    position: int
    """The task's place in the sequence (0 first)."""
    family: str | None
    later: bool
    """One of its family's later tasks (where memory can help)."""
    thread_id: str = ""
    passed: bool = False
    outcome: str | None = None
    rounds: int = 0
    """Graded rounds (critiques)."""
    failing: list[str] = field(default_factory=list)
    """The criteria the kept draft still fails."""
    worker_calls: int = 0
    critic_calls: int = 0
    distiller_calls: int = 0
    recalled: list[dict[str, str]] = field(default_factory=list)
    """The rules given to the worker: id and text."""
    lessons: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    memory_errors: list[str] = field(default_factory=list)
    final: str | None = None

    @property
    def model_calls(self) -> int:
        """Every model call the cell made."""
        return self.worker_calls + self.critic_calls + self.distiller_calls

    def describe(self) -> str:
        """Say in one line what the cell did, for the progress log."""
        memory = ""
        if self.config == "on":
            memory = (
                f"; {len(self.recalled)} rule(s) recalled, {len(self.lessons)} lesson(s), "
                f"{len(self.added)} added, {len(self.reinforced)} reinforced"
            )
        return (
            f"{self.outcome} after {self.rounds} round(s), {self.model_calls} call(s), "
            f"{self.tokens} tokens, {self.wall_seconds:.1f} s{memory}"
        )


class MemoryReport(Report[Step]):
    """The report, and beside it the stores its sequences learn in (`<report>.stores/`)."""

    BENCHMARK = "memory"
    ROW = Step
    COMPARED = ("model", "base_url", "rounds", "set", "repeats", "seed", "task_ids")

    def store_path(self, repeat: int, mode: str) -> Path:
        """Return the SQLite file of one repeat's sequence in one mode."""
        return (
            self.path.with_name(self.path.name + ".stores") / f"repeat{repeat}-memory-{mode}.sqlite"
        )

    @classmethod
    def create(cls, path: Path, settings: dict[str, Any], *, overwrite: bool = False) -> Self:
        """Start a new report, and empty stores beside it."""
        report = super().create(path, settings, overwrite=overwrite)
        shutil.rmtree(report.store_path(1, "on").parent, ignore_errors=True)
        report.store_path(1, "on").parent.mkdir(parents=True)
        return report

    @classmethod
    def resume(cls, path: Path, settings: dict[str, Any]) -> Self:
        """Continue a report whose memory-on stores are all there.

        Raises:
            ReportError: it records another experiment, or a store it learned in is gone.
        """
        report = super().resume(path, settings)
        started = sorted({row.repeat for row in report.rows.values() if row.config == "on"})
        lost = [
            report.store_path(n, "on") for n in started if not report.store_path(n, "on").exists()
        ]
        if lost:
            raise ReportError(
                f"{path}: the store of a memory-on sequence is gone ({lost[0]}); its later "
                "tasks cannot run as they would have: start a new report"
            )
        return report


def _measure(row: Step, state: LoopState) -> None:
    memory = state.memory_report
    usages = [draft.usage for draft in state.drafts] + [c.usage for c in state.critiques]
    usages += [memory.usage] if memory is not None and memory.usage is not None else []
    row.outcome, row.passed = state.outcome, state.outcome == "passed"
    row.rounds = len(state.critiques)
    row.failing = [item.criterion_id for item in state.open_items]
    row.worker_calls = len(state.drafts)
    row.critic_calls = sum(critique.attempts for critique in state.critiques)
    row.distiller_calls = memory.calls if memory is not None else 0
    row.input_tokens = sum(usage.input_tokens for usage in usages)
    row.output_tokens = sum(usage.output_tokens for usage in usages)
    row.tokens_estimated = any(usage.estimated for usage in usages)
    row.recalled = [{"id": rule.id, "text": rule.text} for rule in state.recalled_rules]
    if memory is not None:
        row.lessons, row.added, row.reinforced = memory.lessons, memory.added, memory.reinforced
        row.updated, row.rejected = memory.updated, memory.rejected
    row.memory_errors = list(state.memory_errors)
    row.final = state.final


def stored_rules(path: Path, scope: str) -> list[dict[str, Any]]:
    """Return the rules a store holds, as the report keeps them."""
    with open_persistence(path) as persistence:
        items = persistence.store.search(rules_namespace(scope), limit=10_000)
    rules = []
    for item in items:
        rule = Rule.model_validate(item.value)
        rules.append(
            {
                "id": item.key,
                "text": rule.text,
                "criteria": rule.criteria,
                "topics": rule.topics,
                "thread_id": rule.provenance.thread_id,
                "usage": rule.usage.model_dump(mode="json"),
            }
        )
    return rules


def step_runner(report: MemoryReport) -> Any:
    """Return the cell function of `report`'s run (it keeps memory on's rules in the report)."""

    def run_step(cell: Cell) -> Step:
        task, mode, context = cell.task, cell.configuration.name, cell.configuration.context()
        row = Step(
            repeat=cell.repeat,
            config=mode,
            position=cell.position,
            task=task.id,
            family=task.family,
            later=task.later,
            thread_id=f"r{cell.repeat}-{mode}-{task.id}-{uuid4().hex[:6]}",
        )
        started = time.monotonic()
        store = report.store_path(cell.repeat, mode)
        try:
            state = run_loop(
                task.task, task.rubric, context=context, thread_id=row.thread_id, database=store
            )
        except Exception as error:  # a model or server fault: recorded, the benchmark goes on
            row.error = f"{type(error).__name__}: {error}"[:2000]
            return row
        finally:
            row.wall_seconds = round(time.monotonic() - started, 3)
        _measure(row, state)
        if mode == "on":
            rules = stored_rules(store, context.memory_scope)
            with report.lock:
                report.data.setdefault("rules", {})[f"repeat{cell.repeat}"] = rules
        return row

    return run_step
