"""Build coding.jsonl, writing.jsonl and naive_solutions.json from the task sources.

Run from the repository root: `python -m benchmarks.effectiveness.tasks.sources.build`
(then `python -m benchmarks.effectiveness.validate`). The files are written next to this
package, in benchmarks/effectiveness/tasks/.
"""

from __future__ import annotations

import importlib
import json
import logging
from pathlib import Path
from typing import Any

from benchmarks.effectiveness.tasks.sources import taskdef, tasks_writing

MODULES = ("tasks_easy", "tasks_medium", "tasks_hard")
"""The coding task modules, in the order their tasks appear in coding.jsonl."""

OUT = Path(__file__).resolve().parent.parent
"""Where the generated files go: the task set's directory."""

logger = logging.getLogger(__name__)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write `rows` as JSON Lines, one object per line, UTF-8 kept as it is."""
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    """Write the three task files, refusing duplicate ids across coding and writing."""
    for name in MODULES:  # importing a module declares its tasks
        importlib.import_module(f"{__package__}.{name}")
    writing = tasks_writing.WRITING
    ids = [task["id"] for task in taskdef.TASKS] + [task["id"] for task in writing]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise SystemExit(f"duplicate ids: {sorted(duplicates)}")
    write_jsonl(OUT / "coding.jsonl", list(taskdef.TASKS))
    write_jsonl(OUT / "writing.jsonl", writing)
    (OUT / "naive_solutions.json").write_text(json.dumps(taskdef.NAIVE, indent=1) + "\n")
    counts: dict[str, int] = {}
    for task in taskdef.TASKS:
        counts[task["difficulty"]] = counts.get(task["difficulty"], 0) + 1
    logger.info("coding: %d %s; writing: %d", len(taskdef.TASKS), counts, len(writing))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    main()
