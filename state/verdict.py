"""The critic's verdict: one typed result per criterion; the overall result is derived."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
)

from critic_loop.state.rubric import Severity
from critic_loop.state.sizes import bounded_evidence, bounded_feedback, bounded_hint

SCORE_TOLERANCE = 1e-9  # weighted scores are sums of floats

# texts cut at the operator's limits
Evidence = Annotated[str, AfterValidator(bounded_evidence)]
Hint = Annotated[str, AfterValidator(bounded_hint)]
Note = Annotated[str, AfterValidator(bounded_feedback)]


def first_line(text: str) -> str:
    """Return the first non-empty line of `text` (evidence can run to many lines)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "(no evidence)")


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
