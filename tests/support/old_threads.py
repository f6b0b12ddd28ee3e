"""Write threads the way critic-loop did before its history was stored once.

Run as `python -m tests.support.old_threads DATABASE BASE_URL` (a process of its own: the
old declaration must be in place before the state is imported). The history fields are
declared as they were, `Annotated[list[X], operator.add]` (whole lists in every
checkpoint), and values are stored uncompressed, as they were. Two threads are written
against the scripted server at BASE_URL (a `DistinctDrafts` server):

- `old-finished`: 3 rounds, ended `exhausted`;
- `old-unfinished`: stopped after round 2 was graded and routed (its next step drafts
  round 3), as a run stopped there leaves it.
"""

from __future__ import annotations

import operator
import sys
from typing import Any

FINISHED, UNFINISHED = "old-finished", "old-unfinished"


def old_declaration() -> None:
    """Declare the history fields as before (must run before the state is imported)."""
    import critic_loop.persistence.serde as serde
    import critic_loop.state.history as history

    if "critic_loop.state.loop" in sys.modules:
        raise RuntimeError("the state was imported already: run this module in a new process")
    history.append_only = lambda: operator.add  # type: ignore[assignment,return-value]
    serde.COMPRESS_FROM_BYTES = sys.maxsize


def context(base_url: str, rounds: int) -> dict[str, Any]:
    """Return the context of an old thread's run."""
    return {
        "worker_model": "openai:scripted",
        "critic_model": "openai:scripted",
        "base_url": base_url,
        "memory": False,
        "max_iterations": rounds,
        "stall_rounds": 10,
    }


def write(database: str, base_url: str) -> None:
    """Write `old-finished` and `old-unfinished` into `database`."""
    old_declaration()
    from langgraph.channels.binop import BinaryOperatorAggregate

    from critic_loop.graphs.app import build_graph
    from critic_loop.persistence import open_persistence
    from critic_loop.run import loop_input, run_loop, thread_config
    from tests.support.rubrics import RUBRIC, TASK

    with open_persistence(database) as persistence:
        graph = build_graph(checkpointer=persistence.checkpointer)
        channel = graph.builder.channels["drafts"]
        assert isinstance(channel, BinaryOperatorAggregate), channel
        run_loop(
            TASK,
            RUBRIC,
            context=context(base_url, 3),
            thread_id=FINISHED,
            checkpointer=persistence.checkpointer,
            store=persistence.store,
        )
        config = thread_config(UNFINISHED)
        start: Any = loop_input(TASK, RUBRIC)
        for _ in range(2):  # stop after each round is graded (and its next turn sent)
            graph.invoke(start, config, context=context(base_url, 5), interrupt_after=["critique"])
            start = None


if __name__ == "__main__":
    write(sys.argv[1], sys.argv[2])
