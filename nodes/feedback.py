"""Turn a failing verdict into the feedback the worker is allowed to see.

This is the one place where anything passes from the critic's side to the worker's. The
worker gets the critic's note and one hint per failing criterion, never criterion ids or
criterion text: verbatim criterion text that the critic echoed is cut out, so the rubric
cannot leak through the feedback either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from state.records import WorkerFeedback
from state.rubric import CriterionBase
from state.verdict import Verdict

REDACTED = "[a review requirement]"
"""What replaces criterion text found in the critic's words."""

MIN_REDACTED_WORDS = 3
"""Criterion texts shorter than this are not cut out (they are ordinary words)."""

MAX_NOTE_CHARACTERS = 600
"""Longer hints and notes are cut, so the worker's prompt stays bounded."""


def _bounded(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_NOTE_CHARACTERS else text[: MAX_NOTE_CHARACTERS - 3] + "..."


def _criterion_patterns(rubric: Sequence[CriterionBase]) -> list[re.Pattern[str]]:
    patterns = []
    for criterion in rubric:
        words = re.findall(r"\w+", criterion.describe())
        if len(words) >= MIN_REDACTED_WORDS:
            patterns.append(re.compile(r"\W+".join(map(re.escape, words)), re.IGNORECASE))
    return patterns


def redact_criteria(text: str, rubric: Sequence[CriterionBase]) -> str:
    """`text` with every verbatim occurrence of a criterion's text replaced."""
    for pattern in _criterion_patterns(rubric):
        text = pattern.sub(REDACTED, text)
    return text


def worker_feedback(
    round_number: int, verdict: Verdict, rubric: Sequence[CriterionBase]
) -> WorkerFeedback:
    """Build the worker's feedback on a failing verdict: the note and one hint per failure."""
    hints = [
        _bounded(redact_criteria(result.hint.strip() or result.evidence.strip(), rubric))
        for result in verdict.failing
    ]
    return WorkerFeedback(
        round=round_number,
        summary=_bounded(redact_criteria(verdict.feedback, rubric)),
        hints=[hint for hint in hints if hint],
    )
