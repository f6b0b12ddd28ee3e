"""Build critic answers (verdict JSON) for scripted critics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from critic_loop.state.rubric import Criterion


def graded(
    rubric: Sequence[Criterion | Mapping[str, str]],
    fails: Mapping[str, str] | None = None,
    *,
    claim: bool | None = None,
    feedback: str | None = None,
    terminal: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A well-formed critic answer failing the criteria in `fails` (id -> hint).

    `terminal` (id -> reason) marks failures no revision can fix.
    """
    terminal = dict(terminal or {})
    fails = {**dict(fails or {}), **dict.fromkeys(terminal, "")}
    ids = [c.id if isinstance(c, Criterion) else c["id"] for c in rubric]
    results = [
        {
            "criterion_id": criterion_id,
            "evidence": terminal.get(criterion_id) or f"evidence for {criterion_id}",
            "passed": criterion_id not in fails,
            "terminal": criterion_id in terminal,
            "hint": fails.get(criterion_id, ""),
        }
        for criterion_id in ids
    ]
    return {
        "results": results,
        "feedback": feedback if feedback is not None else ("fix it" if fails else ""),
        "passed": (not fails) if claim is None else claim,
    }
