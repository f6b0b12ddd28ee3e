"""What one round leaves behind: the draft, the critique of it, and the note to the worker."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from critic_loop.state.bounds import cut, share
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.verdict import Evidence, Hint, Note, Verdict

Outcome = Literal[
    "passed", "stalled", "exhausted", "verifier_error", "infeasible", "accepted", "cancelled"
]
"""How a run ended: passed; stalled (no progress); exhausted (the round cap or a budget,
see `exhausted_by`); verifier_error (no acceptable critic answer); infeasible (a criterion
no revision can meet); accepted or cancelled by a person reviewing it."""

SUCCESSFUL_OUTCOMES: frozenset[Outcome] = frozenset({"passed", "accepted"})
# runs that teach something about the worker (a verifier error or infeasible rubric do not)
COMPLETED_OUTCOMES: frozenset[Outcome] = frozenset({"passed", "stalled", "exhausted", "accepted"})


class TokenUsage(BaseModel):
    """Tokens spent by one model call (or several, summed)."""

    input_tokens: int = Field(default=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, description="Completion tokens.")
    estimated: bool = Field(
        default=False,
        description="True when the model reported no usage and the counts are approximations.",
    )

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            estimated=self.estimated or other.estimated,
        )


DraftOrigin = Literal["first", "revision", "resample"]


class DraftRef(BaseModel):
    """Which draft: its round and, when a round drafts several candidates, which one."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    round: int = Field(ge=1, description="The draft's round.")
    candidate: int = Field(default=1, ge=1, description="The draft's candidate in its round.")


class Draft(BaseModel):
    """One artifact the worker produced."""

    round: int = Field(ge=1, description="The round that produced this draft, from 1.")
    candidate: int = Field(
        default=1,
        ge=1,
        description="Which of its round's candidates it is (round 1 may have many).",
    )
    origin: DraftOrigin = Field(default="first", description="How the draft came about.")
    revises: DraftRef | None = Field(
        default=None, description="The draft this one revises (none for first and fresh drafts)."
    )
    text: str = Field(
        description=(
            "The artifact as the worker returned it (invalid characters replaced; cut at "
            "the operator's size limit, see `full_length`)."
        )
    )
    usage: TokenUsage = Field(default_factory=TokenUsage, description="Worker tokens spent.")
    attempts: int = Field(
        default=1,
        ge=0,
        description="Worker calls made for this draft (a malformed reply is asked again).",
    )
    seconds: float = Field(
        default=0.0, ge=0, description="Seconds the worker took, its retries included."
    )
    stopped: str | None = Field(
        default=None,
        description=(
            "Set when a run budget ran out before the worker answered: why. The draft is "
            "then empty."
        ),
    )
    full_length: int | None = Field(
        default=None,
        description=(
            "Set when the reply was longer than the operator's limit: its length in "
            "characters. Only the first part is kept, and the round fails."
        ),
    )

    @property
    def ref(self) -> DraftRef:
        return DraftRef(round=self.round, candidate=self.candidate)


class Agreement(BaseModel):
    """How a candidate behaved beside its round's other passing candidates on further inputs.

    It only ranks passing drafts (`nodes.verifiers.agreement`); it never changes a verdict.
    """

    probes: int = Field(ge=1, description="Further inputs the candidates were run on.")
    support: int = Field(
        ge=1, description="Candidates (this one included) that behaved the same on all of them."
    )
    candidates: int = Field(ge=1, description="Candidates compared.")

    def describe(self) -> str:
        """Say it in one sentence, for the evidence."""
        return (
            f"On {self.probes} further inputs varied from the tests' own, {self.support} of "
            f"the round's {self.candidates} candidates (this one included) behaved the same."
        )


class Critique(BaseModel):
    """The critic's judgement of one draft, or the reason no judgement could be made."""

    round: int = Field(ge=1, description="The round of the draft this critique grades.")
    candidate: int = Field(default=1, ge=1, description="The candidate it grades.")
    duplicate_of: DraftRef | None = Field(
        default=None,
        description=(
            "Set when the draft repeats an earlier one word for word (whitespace aside): "
            "that draft's verdict is reused instead of grading again. A stall signal."
        ),
    )
    verdict: Verdict | None = Field(
        default=None, description="The checked verdict; null when the verifier failed."
    )
    error: Evidence | None = Field(
        default=None, description="Why no verdict could be accepted; null when there is one."
    )
    attempts: int = Field(default=1, ge=0, description="Critic model calls made for this draft.")
    rejected: list[Evidence] = Field(
        default_factory=list,
        description="Why each rejected critic answer was rejected, in order (an audit trail).",
    )
    usage: TokenUsage = Field(default_factory=TokenUsage, description="Critic tokens spent.")
    agreement: Agreement | None = Field(
        default=None,
        description=(
            "When several candidates of the round passed: how many behaved like this one on "
            "further inputs (the larger the share, the likelier it is right)."
        ),
    )
    stopped: str | None = Field(
        default=None,
        description=(
            "Set when a run budget ran out before grading was done: why. The judged "
            "criteria are then not graded (or, for a draft the worker never wrote, nothing "
            "is: the verdict is null)."
        ),
    )
    seconds: float = Field(
        default=0.0,
        ge=0,
        description="Seconds the round's grading took (checks and judges, every candidate).",
    )

    @property
    def ref(self) -> DraftRef:
        return DraftRef(round=self.round, candidate=self.candidate)

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        """Cut the longest texts further when all of them exceed the critique's limit."""
        results = self.verdict.results if self.verdict is not None else []
        texts = [r.evidence for r in results] + [r.hint for r in results]
        texts += [self.verdict.feedback if self.verdict is not None else ""]
        texts += [*self.rejected, self.error or ""]
        cap = share((len(text) for text in texts), operator_settings().max_critique_chars)
        if cap is None:
            return self
        if self.verdict is not None:
            self.verdict = self.verdict.model_copy(
                update={
                    "feedback": cut(self.verdict.feedback, cap),
                    "results": [
                        r.model_copy(
                            update={"evidence": cut(r.evidence, cap), "hint": cut(r.hint, cap)}
                        )
                        for r in results
                    ],
                }
            )
        self.rejected = [cut(text, cap) for text in self.rejected]
        self.error = None if self.error is None else cut(self.error, cap)
        return self


def rounds_done(critiques: Sequence[Critique]) -> int:
    """Return the number of rounds graded so far: the one count of rounds."""
    return max((critique.round for critique in critiques), default=0)


class WorkerFeedback(BaseModel):
    """What crosses from the critic to the worker after a failed round: the only channel.

    The critic's note and hints, with criterion text and ids removed.
    """

    round: int = Field(ge=1, description="The round of the draft this feedback is about.")
    candidate: int = Field(default=1, ge=1, description="The candidate it is about.")
    summary: Note = Field(default="", description="The critic's overall note to the worker.")
    hints: list[Hint] = Field(
        default_factory=list, description="The smallest useful changes, one per failing check."
    )

    @property
    def ref(self) -> DraftRef:
        return DraftRef(round=self.round, candidate=self.candidate)


ReviewAction = Literal["accept", "reject", "override", "stop"]


class Review(BaseModel):
    """A person's decision on a draft, when the run asked for review (`Context.review`)."""

    at_round: int = Field(ge=1, description="The round after which the run asked.")
    draft: DraftRef = Field(description="The draft reviewed: the best so far.")
    asked_because: str = Field(description="Why the run asked for review.")
    action: ReviewAction = Field(description="What the person decided.")
    feedback: str = Field(default="", description="For reject: what the worker should change.")
    criterion_id: str | None = Field(default=None, description="For override: the criterion.")
    passed: bool | None = Field(default=None, description="For override: its result now.")
    note: str = Field(default="", description="For override: why (kept as its evidence).")


class OpenItem(BaseModel):
    """A criterion the returned artifact still fails."""

    criterion_id: str = Field(description="The failing criterion's id.")
    text: str = Field(description="The failing criterion's text.")
    evidence: str = Field(description="Why the critic judged it failing.")
    hint: str = Field(description="The change the critic suggested.")
