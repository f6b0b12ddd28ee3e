"""The rubric: the checkable criteria that only the critic ever sees."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

CRITERION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"


def _require_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


class Criterion(BaseModel):
    """One condition the artifact must meet, graded independently of the others."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(
        min_length=1,
        max_length=64,
        pattern=CRITERION_ID_PATTERN,
        description="Stable identifier, unique within the rubric; verdicts refer to it.",
    )
    text: Annotated[str, AfterValidator(_require_text)] = Field(
        min_length=1,
        max_length=2000,
        description=(
            "The condition, phrased so a reviewer can check it without interpreting it "
            "(for example 'The answer is under 150 words')."
        ),
    )


def _check_task(value: str) -> str:
    if not value.strip():
        raise ValueError("the task is empty: say what the worker should produce")
    return value


def _check_rubric(criteria: list[Criterion]) -> list[Criterion]:
    if not criteria:
        raise ValueError("the rubric is empty: give at least one criterion for the critic")
    seen: set[str] = set()
    for criterion in criteria:
        if criterion.id in seen:
            raise ValueError(f"duplicate criterion id {criterion.id!r}: ids must be unique")
        seen.add(criterion.id)
    return criteria


Task = Annotated[
    str,
    AfterValidator(_check_task),
    Field(description="The objective: the only thing the worker is told."),
]
"""A non-blank task description."""

Rubric = Annotated[
    list[Criterion],
    AfterValidator(_check_rubric),
    Field(description="The criteria the critic grades against. The worker never sees them."),
]
"""A non-empty list of criteria with unique ids."""
