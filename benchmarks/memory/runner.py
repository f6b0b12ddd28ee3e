"""Run the sequence with memory off and with memory on, task by task, into the report.

Each task runs twice in turn, memory off then memory on, so a report cut short still
compares the modes on the same tasks (with `--jobs`, the sequences run side by side
instead, each in its own thread). Both go through critic-loop's own `run_loop`, each
mode of each repeat with its own SQLite database (checkpoints and rules) that starts
empty: the memory-on sequence learns in its store as it goes and recalls from it, the
memory-off sequence never reads or writes rules. After every memory-on task the rules its
store holds are copied into the report, so the report says what was learned, from which
task, and where each rule was recalled.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

from benchmarks.memory.report import MODES, Report, Row
from benchmarks.memory.taskset import Task
from critic_loop.persistence import open_persistence
from critic_loop.run import run_loop
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from critic_loop.state.rules import Rule, rules_namespace

logger = logging.getLogger(__name__)

MAX_CONSECUTIVE_ERRORS = 5
"""Stop the run after this many rows in a row end in an error."""


class RunAborted(RuntimeError):
    """Too many rows in a row failed; the report keeps every row so far."""


@dataclass(frozen=True)
class Step:
    """One task of one repeat's sequence, in one mode."""

    repeat: int
    position: int
    task: Task
    mode: str
    context: Context

    @property
    def key(self) -> tuple[int, str, str]:
        """(repeat, mode, task), as the report keys rows."""
        return self.repeat, self.mode, self.task.id


def plan(
    sequences: Sequence[Sequence[Task]], contexts: dict[str, Context], report: Report
) -> list[Step]:
    """List the steps still to run: each repeat's sequence in order, both modes per task."""
    return [
        Step(repeat, position, task, mode, contexts[mode])
        for repeat, tasks in enumerate(sequences, 1)
        for position, task in enumerate(tasks)
        for mode in MODES
        if not report.done((repeat, mode, task.id))
    ]


def measure(row: Row, state: LoopState) -> Row:
    """Fill in a row from a finished run's state: outcome, rounds, calls, tokens, memory."""
    memory = state.memory_report
    distilled = memory.usage if memory is not None else None
    usages = [draft.usage for draft in state.drafts] + [c.usage for c in state.critiques]
    usages += [distilled] if distilled is not None else []
    row.outcome = state.outcome
    row.passed = state.outcome == "passed"
    row.rounds = state.rounds
    row.failing = [item.criterion_id for item in state.open_items]
    row.worker_calls = sum(draft.attempts for draft in state.drafts)
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
    return row


def stored_rules(step: Step, report: Report) -> list[dict[str, Any]]:
    """Return the rules the step's store holds, as the report keeps them."""
    with open_persistence(report.store_path(step.repeat, step.mode)) as persistence:
        items = persistence.store.search(rules_namespace(step.context.memory_scope), limit=10_000)
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


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:2000]


def run_step(step: Step, report: Report) -> tuple[Row, list[dict[str, Any]] | None]:
    """Run one task in one mode through `run_loop`; errors go into the row.

    Returns the row and, for memory on, the rules its store holds afterwards.
    """
    task = step.task
    row = Row(
        repeat=step.repeat,
        mode=step.mode,
        position=step.position,
        task=task.id,
        family=task.family,
        later=task.later,
        thread_id=f"r{step.repeat}-{step.mode}-{task.id}-{uuid4().hex[:6]}",
    )
    started = time.monotonic()
    try:
        state = run_loop(
            task.task,
            task.rubric,
            context=step.context,
            thread_id=row.thread_id,
            database=report.store_path(step.repeat, step.mode),
        )
    except Exception as error:  # a model or server fault: recorded, the benchmark goes on
        row.wall_seconds = round(time.monotonic() - started, 3)
        row.error = _error(error)
        logger.warning("%s (memory %s): the run failed: %s", task.id, step.mode, row.error)
        return row, None
    row.wall_seconds = round(time.monotonic() - started, 3)
    measure(row, state)
    return row, stored_rules(step, report) if step.mode == "on" else None


def describe(row: Row) -> str:
    """Say in one line what a row shows, for the progress log."""
    if row.error is not None:
        return f"error ({row.error.splitlines()[0][:120]})"
    memory = ""
    if row.mode == "on":
        memory = (
            f"; {len(row.recalled)} rule(s) recalled, {len(row.lessons)} lesson(s), "
            f"{len(row.added)} added, {len(row.reinforced)} reinforced"
        )
    return (
        f"{row.outcome} after {row.rounds} round(s), {row.model_calls} call(s), "
        f"{row.tokens} tokens, {row.wall_seconds:.1f} s{memory}"
    )


class Progress:
    """Records finished rows (from any thread), logs them, and stops a run that keeps failing."""

    def __init__(self, report: Report, total: int) -> None:
        """Count towards `total` rows into `report`."""
        self.report = report
        self.total = total
        self.done = 0
        self.consecutive_errors = 0
        self.stop: str | None = None
        """Why the run stops (rows kept failing, or an interrupt); None while it goes on."""
        self._lock = threading.Lock()

    def finished(self, step: Step, row: Row, rules: list[dict[str, Any]] | None) -> None:
        """Record a row, say so, and decide whether the run goes on."""
        with self._lock:
            self.report.record(row, rules)
            self.done += 1
            logger.info(
                "[%d/%d] repeat %d, %s, memory %s: %s",
                self.done,
                self.total,
                step.repeat,
                step.task.id,
                step.mode,
                describe(row),
            )
            self.consecutive_errors = self.consecutive_errors + 1 if row.error else 0
            if self.consecutive_errors >= MAX_CONSECUTIVE_ERRORS and self.stop is None:
                self.stop = (
                    f"{self.consecutive_errors} rows in a row failed (is the server up?); the "
                    f"report keeps them, and --resume {self.report.path} runs them again"
                )


def lanes(steps: Sequence[Step], jobs: int) -> list[list[Step]]:
    """Split the steps into the lanes that run side by side, each in order.

    One job runs every step in one lane, task by task and memory off then on; more jobs
    give each (repeat, mode) sequence a lane of its own (sequences share nothing).
    """
    if jobs <= 1:
        return [list(steps)] if steps else []
    by_sequence: dict[tuple[int, str], list[Step]] = {}
    for step in steps:
        by_sequence.setdefault((step.repeat, step.mode), []).append(step)
    return list(by_sequence.values())


def run_benchmark(
    sequences: Sequence[Sequence[Task]],
    contexts: dict[str, Context],
    report: Report,
    run: Callable[[Step, Report], tuple[Row, list[dict[str, Any]] | None]] = run_step,
    jobs: int = 1,
) -> int:
    """Run every step the report has not done, recording each row as it finishes.

    With `jobs` above 1, up to that many sequences run at once (see `lanes`). Returns the
    number of steps run.

    Raises:
        RunAborted: `MAX_CONSECUTIVE_ERRORS` rows in a row failed.
    """
    pending = plan(sequences, contexts, report)
    skipped = sum(len(tasks) for tasks in sequences) * len(MODES) - len(pending)
    if skipped:
        logger.info("%d row(s) already in %s are skipped", skipped, report.path)
    report.stores_dir.mkdir(parents=True, exist_ok=True)
    progress = Progress(report, len(pending))

    def run_lane(lane: list[Step]) -> None:
        for step in lane:
            if progress.stop is not None:
                return
            progress.finished(step, *run(step, report))

    work = lanes(pending, jobs)
    if len(work) <= 1:
        for lane in work:
            run_lane(lane)
    else:
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="memory-bench") as pool:
            try:
                for future in [pool.submit(run_lane, lane) for lane in work]:
                    future.result()
            except KeyboardInterrupt:
                progress.stop = "interrupted"  # the lanes finish the runs in flight, then stop
                raise
    if progress.stop is not None:
        raise RunAborted(progress.stop)
    return progress.done
