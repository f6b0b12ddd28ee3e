"""One cell: a configuration's loop on a task, in memory, its drafts graded by the hidden grader.

Errors of the run or of grading go into the row; the harness decides whether to go on.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from benchmarks.effectiveness.calls import Tally, counting
from benchmarks.effectiveness.grading import grade, loop_rubric
from benchmarks.effectiveness.judged import declared_passes, first_length, judged_ids
from benchmarks.effectiveness.report import Run
from benchmarks.effectiveness.taskset import CodingTask, JudgedTask, Task
from benchmarks.harness.configs import Configuration
from benchmarks.harness.runner import Cell
from critic_loop import LoopState, run_loop

logger = logging.getLogger(__name__)


def _measure(row: Run, state: LoopState, calls: Tally) -> None:
    row.outcome, row.outcome_reason = state.outcome, state.outcome_reason
    row.rounds, row.drafts = state.rounds, len(state.drafts)
    row.worker_calls = calls.calls["worker"]
    row.critic_calls = calls.total_calls - row.worker_calls
    row.input_tokens, row.output_tokens = calls.input_tokens, calls.output_tokens
    if calls.unreported:  # estimate from the run's own records
        usages = [draft.usage for draft in state.drafts] + [c.usage for c in state.critiques]
        row.input_tokens = max(row.input_tokens, sum(u.input_tokens for u in usages))
        row.output_tokens = max(row.output_tokens, sum(u.output_tokens for u in usages))
        row.tokens_estimated = True


def _draft_grades(task: Any, state: LoopState) -> list[dict[str, Any]]:
    critiques = {critique.ref: critique for critique in state.critiques}
    grades = []
    for draft in state.drafts:
        critique = critiques.get(draft.ref)
        verdict = critique.verdict if critique is not None else None
        agreement = critique.agreement if critique is not None else None
        grades.append(
            {
                "round": draft.round,
                "candidate": draft.candidate,
                "visible": verdict is not None and verdict.passed,
                "solved": grade(task, draft.text).solved,
                "support": agreement.support if agreement is not None else 1,
            }
        )
    return grades


def judges(configuration: Configuration) -> bool:
    """Whether a configuration's judge can change its result: not one draft in one round."""
    settings = configuration.settings
    return not (settings.get("max_iterations") == 1 and settings.get("candidates") == 1)


def record_result(row: Run, task: Task, state: LoopState) -> None:
    """Grade the run's final draft and every draft; of a judged task, what the run declared."""
    row.final_round, row.final = state.final_round, state.final
    result = grade(task, state.final or "")
    row.draft_grades = _draft_grades(task, state)
    row.solved, row.failing, row.grade_evidence = result.solved, result.failing, result.evidence
    row.first_chars = first_length(state)
    if isinstance(task, JudgedTask):
        judged = judged_ids(task.rubric)
        row.judged_met = {c: c not in result.failing for c in judged}
        row.declared_passed = declared_passes(state, judged)


def run_cell(cell: Cell) -> Run:
    """Run one configuration on one task and grade the result; errors go into the row."""
    task, configuration = cell.task, cell.configuration
    row = Run(task=task.id, kind=task.kind, config=configuration.name)
    row.visible_tests = task.visible_count if isinstance(task, CodingTask) else None
    if isinstance(task, JudgedTask):  # an error leaves every judged criterion unmet
        row.judged_met = dict.fromkeys(judged_ids(task.rubric), False)
    started = time.monotonic()
    try:
        with counting() as counter:
            state = run_loop(
                task.prompt,
                loop_rubric(task, judge=judges(configuration)),
                context=configuration.context(),
                checkpointer=InMemorySaver(),
            )
        row.wall_seconds = round(time.monotonic() - started, 3)
        _measure(row, state, counter.tally)
        record_result(row, task, state)
    except Exception as error:  # a model, server or sandbox fault: recorded, the run goes on
        row.wall_seconds = row.wall_seconds or round(time.monotonic() - started, 3)
        row.error = f"{type(error).__name__}: {error}"[:2000]
        logger.warning("%s / %s: %s", task.id, configuration.name, row.error)
    return row
