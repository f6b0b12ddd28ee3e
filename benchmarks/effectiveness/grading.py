"""What the loop is graded on, and what decides whether a task is solved.

A coding task's loop sees ONE criterion, the prompt's own examples as a test suite (or, for a
problem whose docstring has no example, a syntax check); a result
is then graded by the hidden tests plus the visible ones. A writing task's loop sees its
deterministic rubric, and a result is graded by the same rubric. A judged task's loop sees
its rubric of judged sentences (the one-shot baseline: only its checks, as its judge could
change nothing), and a result is graded by its checks and the hidden graders of its judged
sentences (`judged.py`). Every grade goes through
`critic_loop.grading.critique_artifact`, the critic's own code (checks and sandboxed tests,
no model call), never a second implementation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.effectiveness.judged import checks, criterion_of, grader_criteria
from benchmarks.effectiveness.taskset import CodingTask, JudgedTask, Task
from critic_loop.grading import checked_rubric, critique_artifact

TEST_SECONDS = 20.0
"""Wall-clock limit for one test run, in the loop and in grading."""

EVIDENCE_CHARS = 600

NOT_BLANK = {"id": "not_blank", "kind": "regex", "pattern": "\\S"}
"""The one-shot baseline's rubric for a judged task without a check: the draft is not blank."""


@dataclass(frozen=True)
class Grade:
    """Whether a result solves its task, and what failed if it does not."""

    solved: bool
    failing: list[str]
    """The ids of the failing criteria ("tests" for a coding task's grader; a judged
    criterion's id when its hidden grader fails)."""
    evidence: str


def loop_rubric(task: Task, *, judge: bool = True) -> list[dict[str, Any]]:
    """Return the rubric the loop's critic grades drafts against (the worker never sees it).

    `judge=False` leaves a judged task's judged sentences out (the one-shot baseline).
    """
    if isinstance(task, CodingTask):
        if not task.visible_count:
            return [{"id": "syntax", "kind": "python_syntax"}]
        return [_suite("examples", task.visible_tests)]
    if isinstance(task, JudgedTask) and not judge:
        return checks(task.rubric) or [NOT_BLANK]
    return task.rubric


def _suite(name: str, tests: str) -> dict[str, Any]:
    return {"id": name, "kind": "tests", "tests": tests, "timeout_seconds": TEST_SECONDS}


def grader(task: Task) -> list[dict[str, Any]]:
    """Return the criteria that decide whether a result solves `task`.

    Coding: one test suite of the visible tests followed by the hidden ones (the task set's
    validator guarantees their test names differ). Writing: the task's rubric. Judged: the
    rubric's checks and the hidden graders of its judged sentences.

    Raises:
        ValueError: a judged task's grader is malformed.
    """
    if isinstance(task, CodingTask):
        return [_suite("tests", task.visible_tests.rstrip("\n") + "\n\n\n" + task.hidden_tests)]
    if isinstance(task, JudgedTask):
        return checks(task.rubric) + grader_criteria(task.graders)
    return task.rubric


def check_task(task: Task) -> None:
    """Check that critic_loop accepts the task's loop rubrics and grader, before any run.

    Raises:
        ValueError: it does not; the message names the task.
    """
    try:
        checked_rubric(loop_rubric(task))
        checked_rubric(loop_rubric(task, judge=False))
        checked_rubric(grader(task))
    except ValueError as error:
        raise ValueError(f"task {task.id}: its criteria are unusable: {error}") from error


def grade(task: Task, result: str) -> Grade:
    """Grade a result with the task's hidden grader.

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1.
    """
    verdict = critique_artifact(result, grader(task), {"memory": False}).verdict
    if verdict is None:  # checks and tests always decide; no judge is asked
        raise RuntimeError(f"task {task.id}: the grader gave no verdict")
    failed = [result for result in verdict.results if not result.passed]
    evidence = "\n".join(f"{r.criterion_id}: {r.evidence.strip()}" for r in failed)
    ids = [r.criterion_id for r in failed]
    failing = list(dict.fromkeys(map(criterion_of, ids))) if isinstance(task, JudgedTask) else ids
    return Grade(not failed, failing, evidence[:EVIDENCE_CHARS])
