"""What one round leaves behind: the draft, the critique of it, and the note to the worker."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.sizes import cut, share
from critic_loop.state.verdict import Evidence, Hint, Note, Verdict

Outcome = Literal[
    "passed", "stalled", "exhausted", "verifier_error", "infeasible", "accepted", "cancelled"
]
"""How a run ended: exhausted is the round cap or a budget (`exhausted_by`); verifier_error,
no acceptable critic answer; infeasible, a criterion no revision can meet."""

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


class DraftRecord(BaseModel):
    """What is kept of one draft (the draft, its critique, the feedback on it), by its ref."""

    round: int = Field(ge=1, description="The draft's round, from 1.")
    candidate: int = Field(default=1, ge=1, description="Which of its round's candidates.")

    @property
    def ref(self) -> DraftRef:
        return DraftRef(round=self.round, candidate=self.candidate)


class Draft(DraftRecord):
    """One artifact the worker produced."""

    origin: DraftOrigin = Field(default="first", description="How the draft came about.")
    revises: DraftRef | None = Field(
        default=None, description="The draft this one revises (none for first and fresh drafts)."
    )
    text: str = Field(description="The artifact as the worker returned it (see `full_length`).")
    usage: TokenUsage = Field(default_factory=TokenUsage, description="Worker tokens spent.")
    attempts: int = Field(default=1, ge=0, description="Worker calls made for this draft.")
    seconds: float = Field(
        default=0.0, ge=0, description="Seconds the worker took, its retries included."
    )
    stopped: str | None = Field(
        default=None, description="Why a run budget ran out before the worker answered."
    )
    full_length: int | None = Field(
        default=None, description="The length of a reply cut at the operator's limit (it fails)."
    )


class Agreement(BaseModel):
    """How a candidate behaved beside its round's other passing candidates on further inputs."""

    probes: int = Field(ge=1, description="Further inputs the candidates were run on.")
    support: int = Field(
        ge=1, description="Candidates (this one included) that behaved the same on all of them."
    )
    candidates: int = Field(ge=1, description="Candidates compared.")

    def describe(self) -> str:
        """Say it in one sentence, for the evidence."""
        return (
            f"On {self.probes} further inputs derived from the tests and drafts, {self.support} of "
            f"the round's {self.candidates} candidates (this one included) behaved the same."
        )


class Critique(DraftRecord):
    """The critic's judgement of one draft, or the reason no judgement could be made."""

    duplicate_of: DraftRef | None = Field(
        default=None, description="The earlier draft this one repeats, whose verdict it reuses."
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
        default=None, description="How many passing candidates behaved like this one."
    )
    regressed: str | None = Field(
        default=None,
        description="Why this failing revision is worse than the draft it revises (it fails "
        "what that draft passed, or keeps little of its text): never the run's best, then.",
    )
    stopped: str | None = Field(
        default=None, description="Why a run budget ran out before grading was done."
    )
    seconds: float = Field(
        default=0.0, ge=0, description="Seconds the round's grading took (every candidate)."
    )
    seal: str | None = Field(
        default=None, description="The server's mark that its critic made it (shared memory)."
    )

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        """Cut the longest texts further when all of them exceed the critique's limit."""
        verdict = self.verdict
        results = verdict.results if verdict is not None else []
        texts = [text for r in results for text in (r.evidence, r.hint)]
        texts += [verdict.feedback if verdict is not None else "", *self.rejected, self.error or ""]
        cap = share(map(len, texts), operator_settings().max_critique_chars)
        if cap is None:
            return self
        if verdict is not None:
            results = [
                r.model_copy(update={"evidence": cut(r.evidence, cap), "hint": cut(r.hint, cap)})
                for r in results
            ]
            feedback = cut(verdict.feedback, cap)
            self.verdict = verdict.model_copy(update={"feedback": feedback, "results": results})
        self.rejected = [cut(text, cap) for text in self.rejected]
        self.error = None if self.error is None else cut(self.error, cap)
        return self


def rounds_done(critiques: Sequence[Critique]) -> int:
    """Return the number of rounds graded so far: the one count of rounds."""
    return max((critique.round for critique in critiques), default=0)


class WorkerFeedback(DraftRecord):
    """The only channel from critic to worker: its note and hints, without criterion text or ids."""

    summary: Note = Field(default="", description="The critic's overall note to the worker.")
    hints: list[Hint] = Field(
        default_factory=list, description="What to change: each failing criterion's, each once."
    )
    kept: list[Hint] = Field(
        default_factory=list, description="The draft's own words a judged pass quoted, to keep."
    )


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
