"""The history's channel: `DeltaChannel` stores each step's new items once (docs/persistence.md)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
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


@contextmanager
def listed_checkpoints(checkpointer: Any, config: Any, **options: Any) -> Iterator[Iterator[Any]]:
    """Yield a saver's checkpoint listing; close it even after a `break` (SQLite's holds a lock)."""
    listing = checkpointer.list(config, **options)
    try:
        yield listing
    finally:
        close = getattr(listing, "close", None)
        if close is not None:
            close()


def timestamp(checkpoint: Mapping[str, Any]) -> datetime | None:
    """Return when a checkpoint was taken (its `ts`), in UTC; None if it does not say."""
    try:
        moment = datetime.fromisoformat(str(checkpoint["ts"]))
    except (KeyError, ValueError):
        return None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def highest_round(records: Any) -> int:
    """Return the highest `round` among stored records (plain dicts), 0 if none has one."""
    rounds = [r.get("round") for r in records or [] if isinstance(r, Mapping)]
    return max((r for r in rounds if isinstance(r, int)), default=0)
