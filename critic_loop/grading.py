"""Grade one artifact with the critic alone: no worker, no loop, the loop's own critique.

`grade(artifact, rubric, context)` runs the critique node on a one-draft `CriticView`, so
an artifact is graded as round 1 of a run would grade it, with one difference: unless the
context says otherwise, the judge is not skipped after a failed check, so every criterion
gets a decision. `critic-loop calibrate` uses it to compare the critic with human labels.

    from critic_loop.grading import grade

    verdict = grade("A hash map stores ...", [{"id": "short", "kind": "word_count", "max": 50}])
    verdict.passed, [(r.criterion_id, r.passed, r.evidence) for r in verdict.results]
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from critic_loop.state.context import Context, as_context
from critic_loop.state.rubric import CriterionBase, Rubric
from critic_loop.state.verdict import Verdict

if TYPE_CHECKING:
    from critic_loop.state.records import Critique

RubricLike = Sequence[CriterionBase | Mapping[str, Any]]
"""Criteria as models or as plain dicts."""

_RUBRIC: TypeAdapter[list[Any]] = TypeAdapter(Rubric)


class GradingFailed(RuntimeError):
    """The critic gave no acceptable verdict, even after its retries."""

    def __init__(self, error: str, rejected: Sequence[str] = ()) -> None:
        """Keep why, and why each rejected answer was rejected."""
        self.error = error
        self.rejected = list(rejected)
        super().__init__(error)


def checked_rubric(rubric: RubricLike) -> list[CriterionBase]:
    """Validate a rubric as a run would (non-empty, unique ids, no contradictions).

    Raises:
        pydantic.ValidationError: the rubric is unusable.
    """
    return _RUBRIC.validate_python(list(rubric))


def grading_context(context: Context | Mapping[str, Any] | None) -> Context:
    """Return the context to grade with: judge every criterion unless told otherwise."""
    if isinstance(context, Context):
        return context
    settings = dict(context or {})
    settings.setdefault("skip_judge_on_failed_check", False)
    return as_context(settings)


def _critic_view(artifact: str, rubric: RubricLike) -> Any:
    from critic_loop.state.loop import CriticView
    from critic_loop.state.records import Draft

    return CriticView(rubric=checked_rubric(rubric), drafts=[Draft(round=1, text=artifact)])


@functools.cache
def _critic() -> Any:
    from critic_loop.nodes.loop.critique import acritique, critique
    from critic_loop.nodes.node import Node

    return Node(critique, acritique)


def _runtime(context: Context | Mapping[str, Any] | None) -> Any:
    from langgraph.runtime import Runtime

    return Runtime(context=grading_context(context))


def _critique_of(update: dict[str, Any]) -> Critique:
    from critic_loop.state.records import Critique

    return Critique.model_validate(update["critiques"][0])


def critique_artifact(
    artifact: str,
    rubric: RubricLike,
    context: Context | Mapping[str, Any] | None = None,
) -> Critique:
    """Grade `artifact` against `rubric` with the critic alone; return the whole critique.

    Besides the verdict (None when the critic gave no acceptable one, with `error` saying
    why), the critique holds what the grade cost: `attempts` (critic model calls) and
    `usage` (their tokens), and the answers the judge had rejected. See `grade`.

    Raises:
        pydantic.ValidationError: the rubric is unusable.
        ModelSetupError: a critic model cannot be created.
        openai.APIError, httpx.HTTPError: the model server failed (after its retries).
    """
    view, runtime = _critic_view(artifact, rubric), _runtime(context)
    return _critique_of(_critic()(view, runtime))


async def acritique_artifact(
    artifact: str,
    rubric: RubricLike,
    context: Context | Mapping[str, Any] | None = None,
) -> Critique:
    """`critique_artifact` under asyncio: the judge's calls for several criteria go together."""
    view, runtime = _critic_view(artifact, rubric), _runtime(context)
    return _critique_of(await _critic().arun(view, runtime))


def grade(
    artifact: str,
    rubric: RubricLike,
    context: Context | Mapping[str, Any] | None = None,
) -> Verdict:
    """Grade `artifact` against `rubric` with the critic alone; return its verdict.

    `context` chooses the critic (`critic_model`, `critic_models`, `critic_samples`,
    `judge_granularity`, ...); given as a mapping or left out, the judge grades every
    `llm` criterion even when a check failed.

    Raises:
        GradingFailed: the critic gave no acceptable verdict within `critic_attempts`.
        pydantic.ValidationError: the rubric is unusable.
        ModelSetupError: a critic model cannot be created.
        openai.APIError, httpx.HTTPError: the model server failed (after its retries).
    """
    critique = critique_artifact(artifact, rubric, context)
    if critique.verdict is None:
        raise GradingFailed(critique.error or "the critic gave no verdict", critique.rejected)
    return critique.verdict
