"""Grade one artifact with the critic alone, as round 1 of a run would grade it.

Unless the context says otherwise, the judge is not skipped after a failed check.
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

RubricLike = Sequence[CriterionBase | Mapping[str, Any]]  # criteria as models or plain dicts

_RUBRIC: TypeAdapter[list[Any]] = TypeAdapter(Rubric)


class GradingFailed(RuntimeError):
    """The critic gave no acceptable verdict, even after its retries."""

    def __init__(self, error: str, rejected: Sequence[str] = ()) -> None:
        self.error = error
        self.rejected = list(rejected)
        super().__init__(error)


def checked_rubric(rubric: RubricLike) -> list[CriterionBase]:
    """Validate a rubric as a run would (pydantic.ValidationError: it is unusable)."""
    return _RUBRIC.validate_python(list(rubric))


def _grading_context(context: Context | Mapping[str, Any] | None) -> Context:
    if isinstance(context, Context):
        return context
    return as_context({"skip_judge_on_failed_check": False, **(context or {})})


@functools.cache
def _critic() -> Any:
    from critic_loop.nodes.loop.critique import acritique, critique
    from critic_loop.nodes.node import PolicedNode

    return PolicedNode(critique, acritique)


def critique_artifact(
    artifact: str, rubric: RubricLike, context: Context | Mapping[str, Any] | None = None
) -> Critique:
    """Grade `artifact` against `rubric` with the critic alone; return the whole critique.

    Its verdict is None when the critic gave no acceptable one (`error` says why).

    Raises:
        pydantic.ValidationError: the rubric is unusable.
        ModelSetupError: a critic model cannot be created.
        openai.APIError, httpx.HTTPError: the model server failed (after its retries).
    """
    from langgraph.runtime import Runtime

    from critic_loop.state.loop import CriticView
    from critic_loop.state.records import Critique, Draft

    view = CriticView(rubric=checked_rubric(rubric), drafts=[Draft(round=1, text=artifact)])
    update = _critic()(view, Runtime(context=_grading_context(context)))
    return Critique.model_validate(update["critiques"][0])


def grade(
    artifact: str, rubric: RubricLike, context: Context | Mapping[str, Any] | None = None
) -> Verdict:
    """Grade `artifact` against `rubric` with the critic alone; return its verdict.

    Raises:
        GradingFailed: the critic gave no acceptable verdict within `critic_attempts`;
            otherwise as `critique_artifact`.
    """
    critique = critique_artifact(artifact, rubric, context)
    if critique.verdict is None:
        raise GradingFailed(critique.error or "the critic gave no verdict", critique.rejected)
    return critique.verdict
