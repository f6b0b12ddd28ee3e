"""The task sets (tiers) and which tasks a run covers.

A coding task is a prompt with visible tests (its own examples) and hidden tests; a writing
task is a prompt with a rubric of deterministic criteria; a judged task is a prompt with a
rubric of judged sentences (and perhaps a check), each judged sentence with a hidden grader
of patterns that code runs on the final draft (see `judged.py`). Loading checks each row's fields
and types, so a malformed file fails before any model is called, naming the file and line.
(`python -m benchmarks.effectiveness.validate` checks a task set in depth.)
"""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

TASKS_DIR = Path(__file__).resolve().parent / "tasks"

TIERS = {"project": TASKS_DIR, "range": TASKS_DIR / "range", "judged": TASKS_DIR / "judged"}
"""The task sets: the project's own (49 coding, 14 writing), one in a small model's range
(HumanEval problems and writing tasks with checks; see tasks/range/README.md), and writing
tasks with judged criteria whose truth code can check (tasks/judged/README.md)."""

QUICK_IDS = {
    "project": ("chunk_pad", "second_largest_distinct", "solar_coop_slogan"),
    "range": ("he013_greatest_common_divisor", "he042_incr_list", "slogan_five_words"),
    "judged": ("chess_club_welcome", "coffee_mug_description", "binary_search_beginner"),
}
"""Each tier's smoke slice: short answers (two coding tasks and a writing task, or three
judged ones)."""

Kind = Literal["coding", "writing", "judged"]
KINDS: tuple[Kind, ...] = ("coding", "writing", "judged")


class TaskFileError(ValueError):
    """A task file is missing, is not JSON Lines, or holds a malformed task."""


@dataclass(frozen=True)
class CodingTask:
    """A function to write; solved when its visible and hidden tests all pass."""

    id: str
    prompt: str
    entry_point: str
    visible_tests: str
    hidden_tests: str
    reference: str
    difficulty: str
    kind: Kind = "coding"

    @property
    def visible_count(self) -> int:
        """How many visible tests (the prompt's confirmed examples) the task has."""
        tree = ast.parse(self.visible_tests)
        return sum(isinstance(n, ast.FunctionDef) and n.name.startswith("test") for n in tree.body)


@dataclass(frozen=True)
class WritingTask:
    """A text to write; solved when it passes every criterion of its rubric."""

    id: str
    prompt: str
    rubric: list[dict[str, Any]]
    reference: str
    bad_example: str
    kind: Kind = "writing"


@dataclass(frozen=True)
class JudgedTask:
    """A text to write against judged sentences; solved when every hidden grader passes it.

    `graders` maps each judged (`llm`) criterion's id to the patterns that decide, on the
    final draft, whether it is truly met: `{"all": [...], "any": [...], "none": [...]}`.
    """

    id: str
    prompt: str
    rubric: list[dict[str, Any]]
    graders: dict[str, dict[str, list[str]]]
    reference: str
    paraphrase: str
    """A second draft that meets every criterion in other words (the graders must pass it)."""
    bad_example: str
    kind: Kind = "judged"


Task = CodingTask | WritingTask | JudgedTask
SHAPES: dict[Kind, type[Task]] = {
    "coding": CodingTask,
    "writing": WritingTask,
    "judged": JudgedTask,
}


def _shaped(name: str, value: Any) -> bool:
    if name == "rubric":
        return isinstance(value, list) and all(isinstance(item, dict) for item in value)
    if name == "graders":
        return isinstance(value, dict) and all(isinstance(item, dict) for item in value.values())
    return isinstance(value, str)


def _task(kind: Kind, row: Any, where: str) -> Task:
    shape = SHAPES[kind]
    expected = {f.name for f in fields(shape) if f.name != "kind"}
    if not isinstance(row, dict) or row.keys() != expected:
        have = sorted(row) if isinstance(row, dict) else type(row).__name__
        raise TaskFileError(f"{where}: want the fields {sorted(expected)}, not {have}")
    for name, value in row.items():
        if not _shaped(name, value):
            raise TaskFileError(f"{where}: {name} is not of the right shape")
    return shape(**row)


def load_tasks(kind: Kind, directory: Path = TASKS_DIR) -> list[Task]:
    """Read `<kind>.jsonl` from `directory`, in file order (a missing file: no tasks).

    Raises:
        TaskFileError: a line is not a well-formed task, or two tasks share an id.
    """
    path = directory / f"{kind}.jsonl"
    if not path.exists():
        return []
    tasks: list[Task] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                row = json.loads(line)
            except ValueError as error:
                raise TaskFileError(f"{path}:{number}: invalid JSON: {error}") from error
            tasks.append(_task(kind, row, f"{path}:{number}"))
    ids = [task.id for task in tasks]
    duplicates = sorted({task_id for task_id in ids if ids.count(task_id) > 1})
    if duplicates:
        raise TaskFileError(f"{path}: duplicate ids {duplicates}")
    return tasks


def select_tasks(
    tasks: Sequence[Task],
    *,
    kinds: Iterable[Kind] = KINDS,
    ids: Sequence[str] | None = None,
    limit: int | None = None,
    seed: int | None = None,
) -> list[Task]:
    """Choose the tasks of a run.

    `ids` picks tasks by id, in the order given (every id must exist; `kinds` does not
    filter them). Otherwise the tasks of `kinds` are taken in file order, or shuffled with
    `seed`, and `limit` keeps the first `limit` of each kind.

    Raises:
        ValueError: an id names no task, or `limit` is below 1.
    """
    if ids is not None:
        by_id = {task.id: task for task in tasks}
        unknown = [task_id for task_id in ids if task_id not in by_id]
        if unknown:
            raise ValueError(f"no task has the id {', '.join(unknown)}")
        return [by_id[task_id] for task_id in dict.fromkeys(ids)]
    if limit is not None and limit < 1:
        raise ValueError("--limit must be at least 1")
    chosen: list[Task] = []
    for kind in dict.fromkeys(kinds):
        of_kind = [task for task in tasks if task.kind == kind]
        if seed is not None:
            random.Random(f"{seed}:{kind}").shuffle(of_kind)
        chosen += of_kind[:limit] if limit is not None else of_kind
    return chosen
