"""What the loop is graded on, and what decides whether a task is solved.

A coding task's loop sees ONE criterion, the prompt's own examples as a test suite; the
result is then graded by the hidden tests plus the visible ones, run in critic-loop's own
sandbox (`run_test_suite`). A writing task's loop sees its deterministic rubric, and the
result is re-checked with critic-loop's own checks. Either way the grade uses the same
code the loop's critic does, never a second implementation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from benchmarks.effectiveness.taskset import CodingTask, Task
from critic_loop.nodes.verifiers.checks import run_check
from critic_loop.nodes.verifiers.checks.test_suite import run_test_suite
from critic_loop.state.rubric import Rubric, TestSuite

TEST_SECONDS = 20.0
"""Wall-clock limit for one test run, in the loop and in grading."""

EVIDENCE_CHARS = 600
"""How much of a failing grade's evidence a report row keeps."""

_RUBRIC: TypeAdapter[Any] = TypeAdapter(Rubric)


@dataclass(frozen=True)
class Grade:
    """Whether a result solves its task, and what failed if it does not."""

    solved: bool
    failing: list[str]
    """The ids of the failing criteria ("tests" for a coding task's grader)."""
    evidence: str
    """The failing checks' evidence, shortened; empty when solved."""


def loop_rubric(task: Task) -> list[dict[str, Any]]:
    """Return the rubric the loop's critic grades drafts against (the worker never sees it)."""
    if isinstance(task, CodingTask):
        return [
            {
                "id": "examples",
                "kind": "tests",
                "tests": task.visible_tests,
                "timeout_seconds": TEST_SECONDS,
            }
        ]
    return task.rubric


def grader(task: Task) -> list[Any]:
    """Return the criteria that decide whether a result solves `task`, as models.

    Coding: one test suite of the visible tests followed by the hidden ones (the task set's
    validator guarantees their test names differ). Writing: the task's rubric.

    Raises:
        pydantic.ValidationError: critic_loop does not accept the criteria.
    """
    if isinstance(task, CodingTask):
        tests = task.visible_tests.rstrip("\n") + "\n\n\n" + task.hidden_tests
        return [TestSuite(id="tests", kind="tests", tests=tests, timeout_seconds=TEST_SECONDS)]
    criteria: list[Any] = _RUBRIC.validate_python(task.rubric)
    return criteria


def check_task(task: Task) -> None:
    """Check that critic_loop accepts the task's loop rubric and grader, before any run.

    Raises:
        ValueError: it does not; the message names the task.
    """
    try:
        _RUBRIC.validate_python(loop_rubric(task))
        grader(task)
    except ValueError as error:
        raise ValueError(f"task {task.id}: critic_loop rejects its criteria: {error}") from error


def grade(task: Task, result: str) -> Grade:
    """Grade a run's result (its `final` draft) with the task's hidden grader.

    Raises:
        IsolationUnavailable: the sandbox is incomplete and CRITIC_LOOP_REQUIRE_ISOLATION=1.
    """
    failing: list[str] = []
    evidence: list[str] = []
    for criterion in grader(task):
        if isinstance(criterion, TestSuite):
            outcome = run_test_suite(criterion, result)
        else:
            outcome = run_check(criterion, result)
        if not outcome.passed:
            failing.append(criterion.id)
            evidence.append(f"{criterion.id}: {outcome.evidence.strip()}")
    return Grade(not failing, failing, "\n".join(evidence)[:EVIDENCE_CHARS])
