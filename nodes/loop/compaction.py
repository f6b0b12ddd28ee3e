"""Keep the worker's prompt bounded as rounds accumulate.

The worker's transcript is regular: the task, then for each round its draft and the
feedback on that draft. The worker needs the task, its latest draft and the feedback on
it; older drafts are superseded. Compaction keeps the task and the latest
`keep_rounds` draft/feedback pairs, so the prompt does not grow with the number of rounds
(re-sending every draft would make a run's total tokens grow quadratically).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage


def compact_transcript(transcript: Sequence[BaseMessage], keep_rounds: int) -> list[BaseMessage]:
    """Keep the task message and the last `keep_rounds` (draft, feedback) pairs.

    `transcript` is [task, draft 1, feedback 1, ..., draft n, feedback n] (or just [task]);
    the result still alternates human/AI turns, as every provider requires.
    """
    if keep_rounds < 1:
        raise ValueError("keep_rounds must be at least 1")
    task, rounds = transcript[:1], transcript[1:]
    return [*task, *rounds[-2 * keep_rounds :]]
