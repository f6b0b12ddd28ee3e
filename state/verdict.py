"""The critic's verdict: one typed result per criterion; the overall result is derived."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
)

from critic_loop.state.bounds import bounded_evidence, bounded_feedback, bounded_hint
from critic_loop.state.rubric import CriterionBase, Severity
from critic_loop.state.schema import InvalidAnswer, portable_schema

SCORE_TOLERANCE = 1e-9  # weighted scores are sums of floats

# texts cut at the operator's limits
Evidence = Annotated[str, AfterValidator(bounded_evidence)]
Hint = Annotated[str, AfterValidator(bounded_hint)]
Note = Annotated[str, AfterValidator(bounded_feedback)]


def first_line(text: str) -> str:
    """Return the first non-empty line of `text` (evidence can run to many lines)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "(no evidence)")


class JudgeFinding(BaseModel):
    """The critic model's finding on one criterion (part of the schema sent to the model)."""

    model_config = ConfigDict(extra="forbid")

    criterion_id: str = Field(description="The id of the criterion this result grades.")
    evidence: str = Field(
        description="What in the artifact shows whether the criterion holds (quote or point to it)."
    )
    passed: bool = Field(description="Whether the artifact meets this criterion.")
    terminal: bool = Field(
        description=(
            "True only if no revision of the artifact could ever meet this criterion (it "
            "needs facts the author cannot have, or contradicts another criterion); the "
            "evidence says why. False otherwise, and always false when passed."
        )
    )
    hint: str = Field(
        description=(
            "The smallest concrete change to the artifact that would make it pass; "
            "empty when passed."
        )
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
        description=(
            "The few words of the artifact that show the criterion is met, copied exactly "
            "(a short part, never the whole artifact); empty if nothing shows it."
        )
    )
    verdict: Literal["met", "not met", "not sure"] = Field(
        description='"met" only if the quoted words show it; "not sure" counts as not met.'
    )
    hint: str = Field(
        description=(
            "If not met: the smallest change to the artifact that would meet it; else empty."
        )
    )


class CheckResult(BaseModel):
    """What a deterministic check (built-in, Python function or test suite) decides."""

    passed: bool = Field(description="Whether the artifact meets the criterion.")
    evidence: Evidence = Field(description="What in the artifact shows it.")
    hint: Hint = Field(default="", description="The smallest change that would make it pass.")
    terminal: bool = Field(
        default=False,
        description="No revision of the artifact can make it pass (for example, tests that "
        "cannot even be imported); the evidence says why.",
    )


class CriterionResult(BaseModel):
    """The result on one criterion, as the loop keeps it."""

    criterion_id: str = Field(description="The id of the criterion this result grades.")
    passed: bool = Field(description="Whether the artifact meets this criterion.")
    evidence: Evidence = Field(description="What in the artifact shows whether it holds.")
    hint: Hint = Field(default="", description="The smallest change that would make it pass.")
    skipped: bool = Field(
        default=False,
        description="Not graded this round (the judge was skipped after a failed check).",
    )
    terminal: bool = Field(
        default=False, description="No revision can make it pass; the evidence says why."
    )
    severity: Severity = Field(default="must", description="The criterion's severity.")
    weight: float = Field(default=1.0, description="The criterion's weight.")
    votes: dict[str, bool] | None = Field(
        default=None, description="Each panel judge's vote, when a judge panel graded it."
    )
    source: Literal["check", "judge"] = Field(
        default="judge",
        description="Who decided it: a deterministic check, or the LLM judge (or panel).",
    )
    p_met: float | None = Field(
        default=None,
        description="The judge's probability that it is met, when asked yes or no decided it.",
    )

    @model_serializer(mode="wrap")
    def _without_unset_p_met(self, dump: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = dump(self)
        if data.get("p_met", 0) is None:  # most results: kept as they were before it
            del data["p_met"]
        return data


class Verdict(BaseModel):
    """A checked verdict: one result per rubric criterion, in rubric order."""

    results: list[CriterionResult] = Field(description="One result per criterion, rubric order.")
    feedback: Note = Field(default="", description="The critic's note to the author.")
    pass_threshold: float = Field(
        default=1.0, ge=0.0, le=1.0, description="The weighted score a pass needed."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def score(self) -> float:
        """The weighted score: the share of criterion weight that passed, 0.0 to 1.0."""
        total = sum(result.weight for result in self.results)
        if not total:
            return 0.0
        return sum(result.weight for result in self.results if result.passed) / total

    @computed_field  # type: ignore[prop-decorator]
    @property
    def musts_passed(self) -> int:
        return sum(r.passed for r in self.results if r.severity == "must")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def musts_total(self) -> int:
        return sum(r.severity == "must" for r in self.results)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """Whether the draft passed at `pass_threshold` (derived, never the model's claim)."""
        return self.passes(self.pass_threshold)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def missed(self) -> list[str]:
        return self._missed_bars(self.pass_threshold)

    def passes(self, threshold: float) -> bool:
        """Tell whether every `must` criterion passed and the score reaches `threshold`."""
        return not self._missed_bars(threshold)

    def _missed_bars(self, threshold: float) -> list[str]:
        missed = []
        failing_musts = [r.criterion_id for r in self.unmet if r.severity == "must"]
        if failing_musts:
            missed.append("must criteria not met: " + ", ".join(failing_musts))
        if self.score < threshold - SCORE_TOLERANCE:
            missed.append(f"weighted score {self.score:.2f} is below the bar {threshold:.2f}")
        return missed

    @property
    def terminal(self) -> list[CriterionResult]:
        return [result for result in self.results if result.terminal and not result.passed]

    @property
    def failing(self) -> list[CriterionResult]:
        return [result for result in self.results if not result.passed and not result.skipped]

    @property
    def failing_ids(self) -> frozenset[str]:
        return frozenset(result.criterion_id for result in self.failing)

    @property
    def unmet(self) -> list[CriterionResult]:
        return [result for result in self.results if not result.passed]


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
