"""How the loop's append-only history is checkpointed: each step's new items, stored once.

LangGraph checkpoints a reducer channel (`Annotated[list, operator.add]`) as its whole
accumulated value at every step, so a thread of N rounds stores every draft about 3N/2
times over and its size grows with the square of N. The history fields (`drafts`,
`critiques`, `feedback`, `reviews`, `memory_errors`) use LangGraph's `DeltaChannel`
instead: a checkpoint stores none of their value, only the step's new items (as the
step's writes, which LangGraph keeps anyway), and reading a checkpoint replays the writes
on the path from the thread's first checkpoint to it. Time travel, forks and resumes
read the same values as before.

Threads written before (with `operator.add`) stay readable: a stored full value is the
seed the replay starts from. `DeltaChannel` is a beta API of LangGraph 1.2; its stored
form is promised to stay readable.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

from langgraph.channels.delta import DeltaChannel

SNAPSHOT_EVERY = 1000
"""Updates of a history field between two full copies of it in a checkpoint.

A full copy bounds how far back a read replays, but each one stores the whole value
again. A thread's history gets one update per round, and its rounds are capped at 100
(`max_iterations`), so a run never takes a copy: its stored size stays proportional to
what it holds. LangGraph also takes one when a thread is forked from an earlier step,
and after 5,000 steps without one. (LangGraph.js uses the same default.)
"""


def appended(current: list[Any], batches: Sequence[list[Any]]) -> list[Any]:
    """Return `current` followed by every item of `batches` (the history's reducer).

    Replaying a run's writes in one batch or step by step gives the same list, as
    `DeltaChannel` requires.
    """
    return [*current, *chain.from_iterable(batches)]


def append_only() -> DeltaChannel[list[Any]]:
    """Return the channel of one history field (use it in `Annotated[list[X], ...]`)."""
    return DeltaChannel(appended, snapshot_frequency=SNAPSHOT_EVERY)
