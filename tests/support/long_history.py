"""Long runs for storage tests and benchmarks: distinct 4 KB drafts, a critic that never passes.

`DistinctDrafts` answers a scripted server's requests: every worker reply is a new draft
of `DRAFT_CHARACTERS` pseudo-random words (seeded by its number, so runs repeat exactly,
and hard to compress: about 0.6 of its size with zlib), every verdict fails the first
criterion with a hint, and the distiller proposes nothing. A run of it with
`long_run_context(rounds)` makes exactly `rounds` rounds and ends `exhausted`.

`history_bytes` is the size of what such a run holds, the yardstick stored bytes are
compared with: its drafts, critiques and feedback as JSON (`model_dump_json`).
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from critic_loop.state.loop import LoopState
from tests.support.openai_server import (
    Answer,
    Structured,
    Text,
    is_structured_request,
    rubric_ids,
    schema_name,
)

DRAFT_CHARACTERS = 4096
"""The length of every draft."""


def distinct_draft(number: int, characters: int = DRAFT_CHARACTERS) -> str:
    """Return draft `number`: `characters` of words no other draft repeats."""
    rng = random.Random(number)
    words: list[str] = [f"Draft {number}."]
    size = len(words[0])
    while size < characters:
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9)))
        words.append(word)
        size += len(word) + 1
    return " ".join(words)[:characters]


@dataclass
class DistinctDrafts:
    """A worker that writes a new 4 KB draft each time; a critic that fails one criterion."""

    characters: int = DRAFT_CHARACTERS
    drafts: int = 0

    def __call__(self, request: dict[str, Any]) -> Answer:
        """Answer one request: a draft, a failing verdict, or no rule operations."""
        if not is_structured_request(request):
            self.drafts += 1
            return Text(distinct_draft(self.drafts, self.characters))
        if schema_name(request) == "rule_operations":
            return Structured({"operations": []})
        ids = rubric_ids(request)
        results = [
            {
                "criterion_id": criterion_id,
                "evidence": f"Checked {criterion_id} against the whole draft.",
                "passed": criterion_id != ids[0],
                "terminal": False,
                "hint": "Say it in half the words." if criterion_id == ids[0] else "",
            }
            for criterion_id in ids
        ]
        return Structured({"results": results, "feedback": "Shorter.", "passed": False})


def long_run_context(rounds: int, base_url: str) -> dict[str, Any]:
    """Return a context in which a `DistinctDrafts` run makes exactly `rounds` rounds.

    Memory is on (the default): the finished run is distilled, as a default run is. Stalling
    and the call budget are put out of reach (a round makes a few calls; the default
    budget, 200 calls, would end a 100-round run early).
    """
    return {
        "worker_model": "openai:scripted",
        "critic_model": "openai:scripted",
        "distill_model": "openai:scripted",
        "base_url": base_url,
        "max_iterations": rounds,
        "stall_rounds": max(2, rounds),
        "call_budget": 10 * rounds + 100,
    }


def history_bytes(state: LoopState) -> int:
    """Return the bytes of a run's drafts, critiques and feedback, as JSON."""
    records: list[BaseModel] = [*state.drafts, *state.critiques, *state.feedback]
    return sum(len(record.model_dump_json().encode()) for record in records)
