"""Load the task files and choose which tasks a run covers.

A coding task is a prompt with visible tests (its own examples) and hidden tests; a writing
task is a prompt with a rubric of deterministic criteria. Loading checks each row's fields
and types, so a malformed file fails before any model is called, naming the file and line.
(`python -m benchmarks.effectiveness.validate` checks the task set in depth.)
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
"""The task set's directory (coding.jsonl, writing.jsonl)."""

Kind = Literal["coding", "writing"]
KINDS: tuple[Kind, ...] = ("coding", "writing")

QUICK_IDS = ("chunk_pad", "second_largest_distinct", "solar_coop_slogan")
"""The quick set: two easy coding tasks and one writing task with short answers."""


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


@dataclass(frozen=True)
class WritingTask:
    """A text to write; solved when it passes every criterion of its rubric."""

    id: str
    prompt: str
    rubric: list[dict[str, Any]]
    reference: str
    bad_example: str
    kind: Kind = "writing"


Task = CodingTask | WritingTask

_FIELDS: dict[Kind, dict[str, type]] = {
    "coding": {
        "id": str,
        "prompt": str,
        "entry_point": str,
        "visible_tests": str,
        "hidden_tests": str,
        "reference": str,
        "difficulty": str,
    },
    "writing": {
        "id": str,
        "prompt": str,
        "rubric": list,
        "reference": str,
        "bad_example": str,
    },
}


def _task_from_row(kind: Kind, row: Any, where: str) -> Task:
    fields = _FIELDS[kind]
    if not isinstance(row, dict):
        raise TaskFileError(f"{where}: not a JSON object")
    missing = sorted(fields.keys() - row.keys())
    unexpected = sorted(row.keys() - fields.keys())
    if missing or unexpected:
        raise TaskFileError(f"{where}: fields missing {missing}, unexpected {unexpected}")
    for name, expected in fields.items():
        if not isinstance(row[name], expected):
            raise TaskFileError(f"{where}: {name} is not a {expected.__name__}")
    if kind == "coding":
        return CodingTask(**row)
    if not all(isinstance(criterion, dict) for criterion in row["rubric"]):
        raise TaskFileError(f"{where}: rubric is not a list of objects")
    return WritingTask(**row)


def load_tasks(kind: Kind, directory: Path = TASKS_DIR) -> list[Task]:
    """Read `<kind>.jsonl` from `directory`, in file order.

    Raises:
        TaskFileError: the file is missing or a line is not a well-formed task, or two
            tasks share an id.
    """
    path = directory / f"{kind}.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise TaskFileError(f"cannot read {path}: {error.strerror or error}") from error
    tasks: list[Task] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except ValueError as error:
            raise TaskFileError(f"{where}: invalid JSON: {error}") from error
        tasks.append(_task_from_row(kind, row, where))
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
