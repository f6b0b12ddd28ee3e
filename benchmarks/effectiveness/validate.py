"""Validate a task set (tier) of the effectiveness benchmark.

    .venv/bin/python -m benchmarks.effectiveness.validate [--tier range] [--no-naive] [--jobs N]

Every task loads and critic_loop accepts its criteria; ids are snake_case and unique. Grading
goes through the benchmark's own grader (`grading.grade`: critic_loop's checks and sandboxed
tests), so the validator checks the tasks, not a second implementation of the checks.

Coding tasks: the prompt names the function; the visible tests are single
`assert <call> == <expected>` tests whose call and expected value are in the prompt (they are
its examples); visible and hidden test names differ; the reference passes the loop's rubric
and the grader; a naive solution (`naive_solutions.json`, where the tier has one) fails the
grader (reported: caught by the visible examples, or by hidden tests only). The project tier
asks more: 2-4 visible tests, 5-10 hidden ones, and its prompt wording.

Writing tasks: the reference passes the rubric and the bad example fails it, and every
required phrase, heading and count bound is stated in the prompt (a maximum may be stated
as "under N+1"). The project tier asks for 3-5 criteria.

Judged tasks: 2-3 judged sentences and at most one check, whose bounds and phrases the
prompt states; a hidden grader for every judged sentence and for nothing else; the reference
and the paraphrase pass every grader and check, and the bad example fails every grader; and
at least one judged sentence is not stated in the prompt (its grader fails the prompt's own
text), so it can reach the worker only through the critic's hints.

Prints a summary and exits non-zero on any problem.
"""

# ruff: noqa: T201 - a command-line tool: its job is to print the summary

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from benchmarks.effectiveness.grading import check_task, grade, loop_rubric
from benchmarks.effectiveness.judged import checks, judged_ids
from benchmarks.effectiveness.taskset import (
    KINDS,
    TIERS,
    CodingTask,
    JudgedTask,
    Task,
    WritingTask,
    load_tasks,
)
from critic_loop.grading import critique_artifact

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _stated(number: int, prompt: str) -> bool:
    """Whether the prompt states a number, in digits or (to ten) in words."""
    return str(number) in prompt or (number < len(WORDS) and f" {WORDS[number]} " in prompt)


def _tests(source: str) -> list[ast.FunctionDef]:
    return [
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test")
    ]


def check_coding(task: CodingTask, strict: bool) -> list[str]:
    """Check a coding task's structure (nothing runs)."""
    problems = []
    if f"`{task.entry_point}" not in task.prompt and f"def {task.entry_point}(" not in task.prompt:
        problems.append("the prompt does not name the function")
    if strict and (
        "single Python code block" not in task.prompt
        or task.difficulty not in {"easy", "medium", "hard"}
    ):
        problems.append("the prompt does not ask for a single code block, or bad difficulty")
    visible, hidden = _tests(task.visible_tests), _tests(task.hidden_tests)
    bounds = ((2, 4), (5, 10)) if strict else ((0, 99), (1, 99))
    for name, found, (low, high) in (
        ("visible", visible, bounds[0]),
        ("hidden", hidden, bounds[1]),
    ):
        if not low <= len(found) <= high:
            problems.append(f"{len(found)} {name} tests, want {low}-{high}")
    if {f.name for f in visible} & {f.name for f in hidden}:
        problems.append("visible and hidden tests share names")
    for function in visible:
        test = function.body[0] if len(function.body) == 1 else None
        if not (
            isinstance(test, ast.Assert)
            and isinstance(test.test, ast.Compare)
            and [type(op) for op in test.test.ops] == [ast.Eq]
        ):
            problems.append(f"visible test {function.name} is not a single `assert x == expected`")
            continue
        for part in (test.test.left, test.test.comparators[0]):
            snippet = ast.get_source_segment(task.visible_tests, part)
            if snippet is None or snippet not in task.prompt:
                problems.append(f"visible {snippet!r} ({function.name}) is not in the prompt")
    return problems


def run_coding(task: CodingTask, naive: str | None) -> tuple[list[str], str | None]:
    """Run the reference (and the naive solution): problems, and what caught the naive one."""
    problems = []
    if not grade(task, task.reference).solved:
        problems.append(f"the reference fails: {grade(task, task.reference).evidence}")
    if naive is None:
        return problems, None
    if grade(task, naive).solved:
        return [*problems, "the naive solution passes every test"], None
    visible = critique_artifact(naive, loop_rubric(task), {"memory": False}).verdict
    return problems, "hidden only" if visible is not None and visible.passed else "visible"


def _unstated(rubric: list[dict[str, Any]], prompt: str) -> list[str]:
    """List the phrases, headings and count bounds of checks that the prompt omits."""
    problems = []
    prompt = prompt.lower()
    for criterion in rubric:
        stated = [*criterion.get("phrases", ()), *(f'"{h}"' for h in criterion.get("headings", ()))]
        stated = [text for text in stated if text.lower() not in prompt]
        if stated:
            problems.append(f"{criterion['id']}: {stated} not stated in the prompt")
        low, high = criterion.get("min"), criterion.get("max")
        if low is not None and not _stated(low, prompt):
            problems.append(f"{criterion['id']}: the bound {low} is not stated in the prompt")
        if high is not None and not (_stated(high, prompt) or _stated(high + 1, prompt)):
            problems.append(f"{criterion['id']}: the bound {high} is not stated in the prompt")
    return problems


def check_writing(task: WritingTask, strict: bool) -> list[str]:
    """Check a writing task: reference passes, bad example fails, requirements stated."""
    problems = []
    if strict and not 3 <= len(task.rubric) <= 5:
        problems.append(f"{len(task.rubric)} criteria, want 3-5")
    problems += _unstated(task.rubric, task.prompt)
    if not grade(task, task.reference).solved:
        problems.append(f"the reference fails: {grade(task, task.reference).evidence}")
    if grade(task, task.bad_example).solved:
        problems.append("the bad example passes every criterion")
    return problems


def check_judged(task: JudgedTask) -> list[str]:
    """Check a judged task: its shape, its graders on its drafts, and a requirement unstated."""
    judged, deterministic = judged_ids(task.rubric), checks(task.rubric)
    problems = [] if 2 <= len(judged) <= 3 else [f"{len(judged)} judged criteria, want 2-3"]
    if len(deterministic) > 1:
        problems.append(f"{len(deterministic)} checks, want at most one")
    if sorted(task.graders) != sorted(judged):
        problems.append(f"graders for {sorted(task.graders)}, want one for each of {judged}")
    problems += _unstated(deterministic, task.prompt)
    for name in ("reference", "paraphrase"):
        result = grade(task, getattr(task, name))
        if not result.solved:
            problems.append(f"the {name} fails {result.failing}: {result.evidence}")
    passed = [c for c in judged if c not in grade(task, task.bad_example).failing]
    if passed:
        problems.append(f"the bad example passes the graders of {passed}")
    if not set(judged) & set(grade(task, task.prompt).failing):
        problems.append("the prompt states every judged criterion: none is hidden")
    return problems


def hidden_criteria(task: JudgedTask) -> int:
    """How many judged criteria of the task its prompt does not state (their graders fail it)."""
    return len(set(judged_ids(task.rubric)) & set(grade(task, task.prompt).failing))


def validate(task: Task, tier: str, naive: dict[str, str]) -> tuple[list[str], str | None]:
    """Every problem of one task, and what caught its naive solution (coding)."""
    problems = [] if ID_PATTERN.match(task.id) else ["the id is not snake_case"]
    try:
        check_task(task)
    except ValueError as error:
        return [*problems, str(error)], None
    strict = tier == "project"
    if isinstance(task, JudgedTask):
        return problems + check_judged(task), None
    if isinstance(task, WritingTask):
        return problems + check_writing(task, strict), None
    found, caught = run_coding(task, naive.get(task.id))
    return problems + check_coding(task, strict) + found, caught


def main(argv: list[str] | None = None) -> int:
    """Validate a tier's task files; print a summary; return 0 if every check passed."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.effectiveness.validate")
    parser.add_argument("--tier", choices=sorted(TIERS), default="project")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive solutions")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 2))
    args = parser.parse_args(argv)
    folder = TIERS[args.tier]
    tasks = [task for kind in KINDS for task in load_tasks(kind, folder)]
    naive_file = folder / "naive_solutions.json"
    naive = {} if args.no_naive or not naive_file.exists() else json.loads(naive_file.read_text())
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda task: validate(task, args.tier, naive), tasks))
    problems = [
        f"{t.kind} {t.id}: {p}" for t, (found, _) in zip(tasks, results, strict=True) for p in found
    ]
    caught = [c for _, c in results if c is not None]
    counts = ", ".join(f"{sum(t.kind == kind for t in tasks)} {kind}" for kind in KINDS)
    print(f"{args.tier} tier: {counts} task(s)")
    judged = [task for task in tasks if isinstance(task, JudgedTask)]
    if judged:
        criteria = sum(len(judged_ids(task.rubric)) for task in judged)
        hidden = sum(hidden_criteria(task) for task in judged)
        print(f"judged criteria: {criteria}, {hidden} of them not stated in their prompt")
    if naive:
        print(
            f"naive solutions caught: {len(caught)}/{len(naive)} "
            f"(by hidden tests only: {caught.count('hidden only')})"
        )
    for problem in problems:
        print(" - " + problem)
    print(f"FAILED: {len(problems)} problem(s)" if problems else "OK: all checks passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
