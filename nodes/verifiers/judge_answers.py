"""The judge's answers as the model gives them: their schemas, and how a report is accepted.

A report becomes `CriterionResult`s (`critic_loop.state.verdict`) only once it is accepted.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from critic_loop.nodes.models.gateway import InvalidAnswer, portable_schema
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.verdict import CriterionResult


class JudgeFinding(BaseModel):
    """The critic model's finding on one criterion (part of the schema sent to the model)."""

    model_config = ConfigDict(extra="forbid")

    criterion_id: str = Field(description="The id of the criterion this result grades.")
    evidence: str = Field(
        description="What in the artifact shows whether the criterion holds (quote or point to it)."
    )
    passed: bool = Field(description="Whether the artifact meets this criterion.")
    terminal: bool = Field(
        description="True only if no revision of the artifact could ever meet this criterion (it "
        "needs facts the author cannot have, or contradicts another criterion); the "
        "evidence says why. False otherwise, and always false when passed."
    )
    hint: str = Field(
        description="The smallest concrete change to the artifact that would make it pass; "
        "empty when passed."
    )


class CriticReport(BaseModel):
    """The structured answer the critic model must give (its schema is sent to the model)."""

    model_config = ConfigDict(extra="forbid", title="verdict")

    results: list[JudgeFinding] = Field(
        description="One result for every criterion, each criterion exactly once."
    )
    feedback: str = Field(
        description="A short note to the author on what to change next; empty when all pass."
    )
    passed: bool = Field(description="True only if every criterion passed.")


class CriterionAnswer(BaseModel):
    """The critic model's answer on one criterion, when it grades one per call (no id to echo)."""

    model_config = ConfigDict(extra="forbid", title="answer")

    quote: str = Field(  # first, so the decision rests on the quotation
        description="The few words of the artifact that show the criterion is met, copied exactly "
        "(a short part, never the whole artifact); empty if nothing shows it."
    )
    verdict: Literal["met", "not met", "not sure"] = Field(
        description='"met" only if the quoted words show it; "not sure" counts as not met.'
    )
    hint: str = Field(
        description="If not met: the smallest change to the artifact that would meet it; "
        "else empty."
    )


class InvalidVerdict(InvalidAnswer):
    """A critic report that cannot be accepted as a verdict for this rubric."""


def check_report(report: CriticReport, criteria: Sequence[CriterionBase]) -> list[CriterionResult]:
    """Accept a critic report as results for `criteria`, or raise `InvalidVerdict` saying why."""
    known = {criterion.id for criterion in criteria}
    graded: dict[str, JudgeFinding] = {}
    problems: list[str] = []
    for result in report.results:
        if result.criterion_id not in known:
            problems.append(f"unknown criterion id {result.criterion_id!r}")
        elif result.criterion_id in graded:
            problems.append(f"criterion {result.criterion_id!r} graded more than once")
        else:
            graded[result.criterion_id] = result
        if not any(character.isalnum() for character in result.evidence):
            problems.append(f"criterion {result.criterion_id!r} has no evidence")
        if result.terminal and result.passed:
            problems.append(f"criterion {result.criterion_id!r} is marked terminal but passed")
    missing = [criterion.id for criterion in criteria if criterion.id not in graded]
    if missing:
        problems.append("criteria not graded: " + ", ".join(repr(i) for i in missing))
    if not problems:  # the model's overall claim means "every criterion I graded passed"
        derived = all(result.passed for result in graded.values())
        if report.passed != derived:
            claim = "passed" if report.passed else "failed"
            problems.append(
                f"overall result says {claim} but the per-criterion results say "
                f"{'passed' if derived else 'failed'}"
            )
    if problems:
        raise InvalidVerdict(problems)
    return [CriterionResult(**graded[criterion.id].model_dump()) for criterion in criteria]


@functools.cache  # built once per process: a schema is not cheap to build
def critic_output_schema() -> dict[str, Any]:
    """Return the JSON schema the critic's output is pinned to (shared: do not change it)."""
    return portable_schema(
        CriticReport, "The grade of an artifact against every criterion of a rubric."
    )


@functools.cache  # built once per process: a schema is not cheap to build
def criterion_answer_schema() -> dict[str, Any]:
    return portable_schema(CriterionAnswer, "Whether an artifact meets one criterion.")
