"""What a finished run shows, found without a model: checks that failed, then passed after a hint.

The lesson is the hint, as the worker saw it, of the last round that failed the criterion.
"""

from __future__ import annotations

from collections.abc import Sequence

from critic_loop.nodes.loop.feedback import REDACTED, REDACTED_ID, redact_criteria
from critic_loop.nodes.loop.history_queries import best_critique
from critic_loop.nodes.verifiers.checks.text import NEAR_MISS
from critic_loop.state.records import Critique
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.rules import Lesson

MAX_LESSON_CHARACTERS = 300  # longer hints (test output, long notes) are reports, not lessons


def _last_hint(critiques: Sequence[Critique], criterion_id: str, before: int) -> str:
    for critique in sorted(critiques, key=lambda c: (c.round, -c.candidate), reverse=True):
        if critique.round >= before or critique.verdict is None:
            continue
        for result in critique.verdict.failing:
            if result.criterion_id == criterion_id and result.hint.strip():
                return result.hint.strip()
    return ""


def _as_lesson(hint: str, rubric: Sequence[CriterionBase]) -> str | None:
    general = hint.split(NEAR_MISS)[0]  # what one draft had instead is no lesson
    text = " ".join(redact_criteria(general, rubric).split())
    if not text or REDACTED in text or REDACTED_ID in text:
        return None
    return text if len(text) <= MAX_LESSON_CHARACTERS else None


def observed_lessons(
    critiques: Sequence[Critique], rubric: Sequence[CriterionBase]
) -> list[Lesson]:
    """List the lessons a run shows: one per criterion fixed after a hint, in rubric order."""
    kept = best_critique(critiques)
    if kept is None or kept.verdict is None:
        return []
    lessons: dict[str, Lesson] = {}
    for result in kept.verdict.results:
        if not result.passed or result.skipped:
            continue
        hint = _last_hint(critiques, result.criterion_id, before=kept.round)
        text = _as_lesson(hint, rubric) if hint else None
        if text is not None and text.lower() not in lessons:
            lessons[text.lower()] = Lesson(criterion_id=result.criterion_id, text=text)
    return list(lessons.values())
