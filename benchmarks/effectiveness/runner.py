"""Run every configuration on every task, one pair at a time, into the report.

The work is interleaved, task by task (all configurations of a task before the next
task), so a report cut short still compares the configurations on the same tasks. Each
pair runs the loop in memory (no checkpoint file, no rule store), grades its `final` draft
with the hidden grader, and records a row, also when the run or the grading failed: the
error is kept in the row and the run goes on, unless errors keep coming (the server is
probably down), which stops the run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from benchmarks.effectiveness.calls import Tally, counting
from benchmarks.effectiveness.configs import Configuration
from benchmarks.effectiveness.grading import grade, loop_rubric
from benchmarks.effectiveness.report import Report, Row
from benchmarks.effectiveness.taskset import Task
from critic_loop.run import run_loop
from critic_loop.state.loop import LoopState

logger = logging.getLogger(__name__)

MAX_CONSECUTIVE_ERRORS = 5
"""Stop the run after this many pairs in a row end in an error."""


class RunAborted(RuntimeError):
    """Too many pairs in a row failed; the report keeps every row so far."""


@dataclass(frozen=True)
class Pair:
    """One configuration on one task."""

    task: Task
    configuration: Configuration


def plan(
    tasks: Sequence[Task], configurations: Sequence[Configuration], report: Report
) -> list[Pair]:
    """List the pairs still to run, task by task, skipping those the report has done."""
    return [
        Pair(task, configuration)
        for task in tasks
        for configuration in configurations
        if not report.done(task.id, configuration.name)
    ]


def measure(row: Row, state: LoopState, tally: Tally) -> Row:
    """Fill in a row's counts from a finished run's state and the calls counted during it.

    Calls and tokens are what `calls.counting` saw (see `calls`): the worker's calls, and
    every other model call as critic calls. Tokens the server did not report are
    estimated from the run's own records (and the row says so).
    """
    row.outcome = state.outcome
    row.outcome_reason = state.outcome_reason
    row.rounds = state.rounds
    row.drafts = len(state.drafts)
    row.worker_calls = tally.calls["worker"]
    row.critic_calls = tally.total_calls - row.worker_calls
    row.input_tokens = tally.input_tokens
    row.output_tokens = tally.output_tokens
    if tally.unreported:
        usages = [draft.usage for draft in state.drafts] + [c.usage for c in state.critiques]
        row.input_tokens = max(row.input_tokens, sum(u.input_tokens for u in usages))
        row.output_tokens = max(row.output_tokens, sum(u.output_tokens for u in usages))
        row.tokens_estimated = True
    row.final_round = state.final_round
    row.final = state.final
    return row


def grade_drafts(task: Task, state: LoopState) -> list[dict[str, Any]]:
    """Grade every draft of a run with the hidden grader, beside the loop's own verdict."""
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


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:2000]


def run_pair(pair: Pair) -> Row:
    """Run one configuration on one task and grade the result; errors go into the row."""
    task, configuration = pair.task, pair.configuration
    row = Row(task=task.id, kind=task.kind, config=configuration.name)
    started = time.monotonic()
    try:
        with counting() as counter:
            state = run_loop(
                task.prompt,
                loop_rubric(task),
                context=configuration.context(),
                checkpointer=InMemorySaver(),
            )
    except Exception as error:  # a model or server fault: recorded, the benchmark goes on
        row.wall_seconds = round(time.monotonic() - started, 3)
        row.error = _error(error)
        logger.warning("%s / %s: the run failed: %s", task.id, configuration.name, row.error)
        return row
    row.wall_seconds = round(time.monotonic() - started, 3)
    measure(row, state, counter.tally)
    try:
        result = grade(task, state.final or "")
        row.draft_grades = grade_drafts(task, state)
    except Exception as error:  # the grader could not run (sandbox setup): recorded
        row.error = _error(error)
        logger.warning("%s / %s: grading failed: %s", task.id, configuration.name, row.error)
        return row
    row.solved, row.failing, row.grade_evidence = result.solved, result.failing, result.evidence
    return row


def describe(row: Row) -> str:
    """Say in one line what a pair did, for the progress log."""
    if row.error is not None:
        return f"error ({row.error.splitlines()[0][:120]})"
    verdict = "solved" if row.solved else "not solved"
    return (
        f"{verdict}; loop {row.outcome} after {row.rounds} round(s), {row.model_calls} model "
        f"call(s), {row.tokens} tokens, {row.wall_seconds:.1f} s"
    )


def run_benchmark(
    tasks: Sequence[Task],
    configurations: Sequence[Configuration],
    report: Report,
    run: Callable[[Pair], Row] = run_pair,
) -> int:
    """Run every pair the report has not done, recording each row as it finishes.

    Returns the number of pairs run.

    Raises:
        RunAborted: `MAX_CONSECUTIVE_ERRORS` pairs in a row failed.
    """
    pending = plan(tasks, configurations, report)
    skipped = len(tasks) * len(configurations) - len(pending)
    if skipped:
        logger.info("%d pair(s) already in %s are skipped", skipped, report.path)
    consecutive_errors = 0
    for number, pair in enumerate(pending, 1):
        row = run(pair)
        report.record(row)
        logger.info(
            "[%d/%d] %s / %s: %s",
            number,
            len(pending),
            pair.task.id,
            pair.configuration.name,
            describe(row),
        )
        consecutive_errors = consecutive_errors + 1 if row.error is not None else 0
        if consecutive_errors >= MAX_CONSECUTIVE_ERRORS:
            raise RunAborted(
                f"{consecutive_errors} pairs in a row failed (is the server up?); the report "
                f"keeps them, and --resume {report.path} runs them again"
            )
    return len(pending)
