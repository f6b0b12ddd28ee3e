"""The task set: families of tasks that share a hidden requirement, and unrelated tasks.

`tasks/tasks.json` holds the families (each a house requirement, the rubric that checks
it, the words that would give it away, and four tasks that never use them, each with the
checks of what its own text asks, if any) and the unrelated tasks (each with its own
rubric, stated in its task). `sequence` interleaves them into the order a run takes: the
families' first tasks, then their second tasks, and so on, with an unrelated task after
every `UNRELATED_EVERY` family tasks. A family's first task is where memory can only
learn; its later tasks are where it can help.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from critic_loop.grading import checked_rubric

TASKS_FILE = Path(__file__).parent / "tasks" / "tasks.json"
"""The task set."""

UNRELATED_EVERY = 4
"""An unrelated task follows every this many family tasks."""

QUICK_FAMILIES = ("shop", "meetings")
"""The families of the CI slice (`--quick`)."""

QUICK_TASKS_PER_FAMILY = 3
QUICK_UNRELATED = ("haiku_rain",)


class TaskFileError(ValueError):
    """The task file is missing or malformed; the message says where."""


@dataclass(frozen=True)
class Task:
    """One task of the sequence, with the rubric its critic grades it by."""

    id: str
    task: str
    rubric: list[dict[str, Any]]
    family: str | None
    """The family it belongs to; None for an unrelated task."""
    index: int
    """Its place in its family (0: the first, where memory can only learn)."""

    @property
    def later(self) -> bool:
        """Whether it is one of its family's later tasks (where memory can help)."""
        return self.family is not None and self.index > 0


@dataclass(frozen=True)
class Family:
    """Tasks that share a requirement their texts never state."""

    id: str
    requirement: str
    tasks: list[Task]


@dataclass(frozen=True)
class TaskSet:
    """The families and the unrelated tasks."""

    families: list[Family]
    unrelated: list[Task]

    def family(self, family_id: str) -> Family:
        """Return the family `family_id`.

        Raises:
            KeyError: there is none.
        """
        for family in self.families:
            if family.id == family_id:
                return family
        raise KeyError(family_id)


def _checked_rubric(rubric: Any, where: str) -> list[dict[str, Any]]:
    try:
        checked_rubric(rubric)
    except ValueError as error:
        raise TaskFileError(f"{where}: critic_loop rejects its rubric: {error}") from error
    checked: list[dict[str, Any]] = rubric
    return checked


def load_tasks(path: Path = TASKS_FILE) -> TaskSet:
    """Read and check the task set.

    Raises:
        TaskFileError: the file cannot be read, or a family, task or rubric is malformed.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        families = [
            Family(
                id=family["id"],
                requirement=family["requirement"],
                tasks=[
                    Task(
                        id=item["id"],
                        task=item["task"],
                        rubric=_checked_rubric(
                            [*family["rubric"], *item.get("rubric", [])], f"task {item['id']}"
                        ),
                        family=family["id"],
                        index=index,
                    )
                    for index, item in enumerate(family["tasks"])
                ],
            )
            for family in data["families"]
        ]
        unrelated = [
            Task(
                id=item["id"],
                task=item["task"],
                rubric=_checked_rubric(item["rubric"], f"task {item['id']}"),
                family=None,
                index=0,
            )
            for item in data["unrelated"]
        ]
    except OSError as error:
        raise TaskFileError(f"cannot read {path}: {error.strerror or error}") from error
    except (ValueError, KeyError, TypeError) as error:
        raise TaskFileError(f"{path}: {type(error).__name__}: {error}") from error
    for family, raw in zip(families, data["families"], strict=True):
        for task in family.tasks:
            told = [word for word in raw.get("hidden", []) if word.lower() in task.task.lower()]
            if told:
                raise TaskFileError(
                    f"{path}: task {task.id} gives its family's requirement away ({told[0]!r})"
                )
    ids = [task.id for family in families for task in family.tasks] + [t.id for t in unrelated]
    repeated = sorted({task_id for task_id in ids if ids.count(task_id) > 1})
    if repeated:
        raise TaskFileError(f"{path}: task ids used twice: {', '.join(repeated)}")
    return TaskSet(families, unrelated)


def select(
    tasks: TaskSet,
    *,
    families: Sequence[str] | None = None,
    per_family: int | None = None,
    unrelated: Sequence[str] | None = None,
) -> TaskSet:
    """Keep the named families (their first `per_family` tasks) and unrelated tasks.

    Raises:
        KeyError: a family or an unrelated task is not in the set.
    """
    chosen = [tasks.family(name) for name in families] if families else list(tasks.families)
    by_id = {task.id: task for task in tasks.unrelated}
    kept_unrelated = (
        [by_id[task_id] for task_id in unrelated] if unrelated is not None else tasks.unrelated
    )
    return TaskSet(
        [Family(f.id, f.requirement, f.tasks[:per_family]) for f in chosen], kept_unrelated
    )


def quick(tasks: TaskSet) -> TaskSet:
    """Return the CI slice: two families of three tasks, and one unrelated task."""
    return select(
        tasks,
        families=QUICK_FAMILIES,
        per_family=QUICK_TASKS_PER_FAMILY,
        unrelated=QUICK_UNRELATED,
    )


def sequence(tasks: TaskSet, seed: int | None = None) -> list[Task]:
    """Interleave the set into the order a run takes (see the module docstring).

    With `seed`, the families' order within each pass is shuffled (the same way for every
    mode, so memory on and off still see the same sequence).
    """
    chooser = random.Random(seed)
    order: list[Task] = []
    unrelated = list(tasks.unrelated)
    count = 0
    for index in range(max((len(f.tasks) for f in tasks.families), default=0)):
        families = list(tasks.families)
        if seed is not None:
            chooser.shuffle(families)
        for family in families:
            if index >= len(family.tasks):
                continue
            order.append(family.tasks[index])
            count += 1
            if count % UNRELATED_EVERY == 0 and unrelated:
                order.append(unrelated.pop(0))
    return order + unrelated
