"""Find where a thread can be forked: the checkpoints taken right after a round was graded.

Reading every state would replay the thread's writes each time (`state.history`): time in
the square of its length. This lists its checkpoints once: a checkpoint's graded round is
the highest among the critiques written before it on its line (or stored in it whole).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

CRITIQUES = "critiques"


@dataclass(frozen=True)
class _Point:
    config: RunnableConfig
    parent: str | None
    stored: int  # the highest round among critiques it stores whole (old threads)
    written: int  # the highest round among critiques the steps taken from it wrote (-1: none)


def _highest_round(records: Any) -> int:
    rounds = [r.get("round") for r in records or [] if isinstance(r, Mapping)]
    return max((r for r in rounds if isinstance(r, int)), default=0)


def _point(item: Any) -> _Point:
    stored = item.checkpoint.get("channel_values", {}).get(CRITIQUES)
    stored = getattr(stored, "value", stored)  # a snapshot of the channel holds its value
    written = [value for _, channel, value in item.pending_writes or [] if channel == CRITIQUES]
    parent = item.parent_config["configurable"].get("checkpoint_id") if item.parent_config else None
    return _Point(
        item.config,
        str(parent) if parent else None,
        _highest_round(stored if isinstance(stored, list) else []),
        max((_highest_round(value) for value in written), default=-1),
    )


def graded_checkpoints(
    checkpointer: BaseCheckpointSaver[Any], thread_id: str, round_number: int
) -> Iterator[RunnableConfig]:
    """Yield the configs of `thread_id`'s checkpoints right after round `round_number` was graded.

    Newest first, on every branch of the thread.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    points: dict[str, _Point] = {}
    order: list[str] = []
    listing = checkpointer.list(config)
    try:
        for item in listing:
            checkpoint_id = str(item.config["configurable"]["checkpoint_id"])
            points[checkpoint_id] = _point(item)
            order.append(checkpoint_id)
    finally:
        close = getattr(listing, "close", None)
        if close is not None:
            close()  # the SQLite saver holds its connection while a listing is open
    graded: dict[str, int] = {}

    def graded_at(checkpoint_id: str) -> int:
        line: list[str] = []
        current: str | None = checkpoint_id
        while current is not None and current in points and current not in graded:
            line.append(current)
            current = points[current].parent
        reached = graded.get(current, 0) if current is not None else 0
        for step in reversed(line):  # oldest first
            point = points[step]
            parent = points.get(point.parent) if point.parent else None
            made = parent.written if parent is not None else 0
            reached = max(reached, point.stored, made)
            graded[step] = reached
        return graded[checkpoint_id]

    for checkpoint_id in order:
        point = points[checkpoint_id]
        parent = points.get(point.parent) if point.parent else None
        after_critique = parent is not None and parent.written >= 0
        if after_critique and graded_at(checkpoint_id) == round_number:
            yield point.config
