"""Run a benchmark's cells (a configuration on a task, in a repeat) into its report.

The plan takes each repeat's tasks in order and every configuration of a task before the
next task, so a report cut short still compares the configurations on the same tasks.
Cells the report has done are skipped. A cell's failure is kept in its row and the run
goes on, unless failures keep coming (the server is probably down): then it stops, and
the report keeps every row so far.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, Protocol

from benchmarks.harness.configs import Configuration
from benchmarks.harness.report import Report, Row

logger = logging.getLogger(__name__)

MAX_CONSECUTIVE_ERRORS = 5


class Task(Protocol):
    """What the harness needs of a benchmark's task: its id."""

    @property
    def id(self) -> str:  # noqa: D102
        ...


class Cell(NamedTuple):
    """One configuration on one task, in one repeat (`position`: the task's place in it)."""

    repeat: int
    position: int
    task: Any
    configuration: Configuration


def plan(
    sequences: Sequence[Sequence[Task]],
    configurations: Sequence[Configuration],
    report: Report[Any],
) -> list[Cell]:
    """List the cells still to run: each repeat's tasks in order, every configuration of each."""
    cells = [
        Cell(repeat, position, task, configuration)
        for repeat, tasks in enumerate(sequences, 1)
        for position, task in enumerate(tasks)
        for configuration in configurations
    ]
    return [c for c in cells if not report.done((c.repeat, c.configuration.name, c.task.id))]


class RunAborted(RuntimeError):
    """Too many cells in a row failed; the report keeps every row so far."""


def _independent(cell: Cell) -> Hashable:
    return cell.repeat, cell.position, cell.configuration.name


def run_cells(
    cells: Sequence[Cell],
    run: Callable[[Cell], Row],
    report: Report[Any],
    *,
    jobs: int = 1,
    lane: Callable[[Cell], Hashable] = _independent,
) -> int:
    """Run `cells`, recording each row as it finishes; return how many ran.

    With `jobs` above 1 that many lanes run side by side, a lane being the cells with the
    same `lane(cell)`, in order (by default every cell is a lane of its own).

    Raises:
        RunAborted: `MAX_CONSECUTIVE_ERRORS` cells in a row failed.
    """
    lock = threading.Lock()
    state = {"done": 0, "failing": 0}
    stop: list[str] = []

    def one(cell: Cell) -> None:
        row = run(cell)
        report.record(row)
        with lock:
            state["done"] += 1
            state["failing"] = state["failing"] + 1 if row.error else 0
            name = cell.task.id + (f" (repeat {cell.repeat})" if cell.repeat > 1 else "")
            summary = getattr(row, "describe", lambda: "")()
            logger.info(
                "[%d/%d] %s / %s: %s",
                state["done"],
                len(cells),
                name,
                cell.configuration.name,
                f"error ({row.error.splitlines()[0][:120]})" if row.error else summary,
            )
            if state["failing"] >= MAX_CONSECUTIVE_ERRORS and not stop:
                stop.append(
                    f"{state['failing']} cells in a row failed (is the server up?); the report "
                    f"keeps them, and --resume {report.path} runs them again"
                )

    def run_lane(lane_cells: list[Cell]) -> None:
        for cell in lane_cells:
            if stop:
                return
            one(cell)

    lanes: dict[Hashable, list[Cell]] = {}
    for cell in cells:
        lanes.setdefault(lane(cell) if jobs > 1 else None, []).append(cell)
    if jobs <= 1:
        for work in lanes.values():
            run_lane(work)
    else:
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="benchmark") as pool:
            try:
                for future in [pool.submit(run_lane, work) for work in lanes.values()]:
                    future.result()
            except KeyboardInterrupt:
                stop.append("interrupted")  # the lanes finish the cells in flight, then stop
                raise
    if stop:
        raise RunAborted(stop[0])
    return int(state["done"])
