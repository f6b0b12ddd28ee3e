"""The history's channel: `DeltaChannel` stores each step's new items once (docs/persistence.md)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

from langgraph.channels.delta import DeltaChannel

# updates between two full copies of a field: more than a run's rounds (capped at 100), so
# a run never takes one (LangGraph also copies on a fork, and after 5,000 steps)
SNAPSHOT_EVERY = 1000


def appended(current: list[Any], batches: Sequence[list[Any]]) -> list[Any]:
    """Return `current` followed by every item of `batches` (the history's reducer)."""
    return [*current, *chain.from_iterable(batches)]


def append_only() -> DeltaChannel[list[Any]]:
    """Return the channel of one history field (use it in `Annotated[list[X], ...]`)."""
    return DeltaChannel(appended, snapshot_frequency=SNAPSHOT_EVERY)
