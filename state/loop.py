"""The loop's state and its nodes' views; channel descriptions go in `Annotated[...]` (server)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from critic_loop.state.budget import Allowance
from critic_loop.state.history import append_only
from critic_loop.state.records import (
    Critique,
    Draft,
    DraftOrigin,
    DraftRecord,
    DraftRef,
    OpenItem,
    Outcome,
    Review,
    WorkerFeedback,
    rounds_done,
)
from critic_loop.state.rubric import KeptRubric, Task
from critic_loop.state.rules import MemoryReport, RecalledRule


class LoopOutput(BaseModel):
    """What a served run returns: how it ended, and its answer (the history stays in the thread)."""

    outcome: Annotated[
        Outcome | None, Field(description="How the run ended; null while it is running.")
    ] = None
    outcome_reason: Annotated[
        str | None, Field(description="Why the run ended as it did, in words.")
    ] = None
    exhausted_by: Annotated[
        str | None,
        Field(
            description="For an exhausted run, the limit it reached: max_iterations, "
            "call_budget, token_budget or time_budget_seconds."
        ),
    ] = None
    final: Annotated[
        str | None, Field(description="The artifact returned: the passing draft, else the best.")
    ] = None
    final_round: Annotated[
        int | None, Field(description="The round of the draft returned as `final`.")
    ] = None
    open_items: Annotated[
        list[OpenItem],
        Field(description="The criteria `final` still fails (a pass may miss should criteria)."),
    ] = Field(default_factory=list)
    thread_id: Annotated[
        str | None, Field(description="The thread the run belongs to (set when it ends).")
    ] = None


class LoopState(LoopOutput):
    """Everything the loop knows; checkpointed after every step."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    task: Task
    rubric: KeptRubric
    drafts: Annotated[
        list[Draft], Field(description="Every draft, oldest first. Never cleared."), append_only()
    ] = Field(default_factory=list)
    critiques: Annotated[
        list[Critique],
        Field(description="One critique per draft, oldest first. Never cleared."),
        append_only(),
    ] = Field(default_factory=list)
    feedback: Annotated[
        list[WorkerFeedback],
        Field(description="What the worker was told after each failed round. Never cleared."),
        append_only(),
    ] = Field(default_factory=list)
    reviews: Annotated[
        list[Review],
        Field(description="What people reviewing the run decided, in order. Never cleared."),
        append_only(),
    ] = Field(default_factory=list)
    recalled_rules: Annotated[
        list[RecalledRule],
        Field(description="The rules the worker was given before its first draft (memory recall)."),
    ] = Field(default_factory=list)
    memory_report: Annotated[
        MemoryReport | None,
        Field(description="What distillation did to the scope's rules after the run."),
    ] = None
    memory_errors: Annotated[
        list[str],
        Field(description="Memory steps that failed (recall, usage, distill); the run went on."),
        append_only(),
    ] = Field(default_factory=list)
    ending: Annotated[
        dict[str, str | None] | None,
        Field(description="How the run ends, as the route decided it; finalize declares it."),
    ] = None

    @property
    def rounds(self) -> int:
        return rounds_done(self.critiques)


class RevisionStep(DraftRecord):
    """A draft the worker wrote, and the feedback it got on it."""

    text: Annotated[str, Field(description="The draft, as the worker wrote it.")]
    feedback: Annotated[WorkerFeedback, Field(description="What the worker was told about it.")]


class WorkerTurn(BaseModel):
    """What the worker is given for one draft: never the rubric, a verdict or criterion text."""

    task: Task
    round: Annotated[int, Field(ge=1, description="The round this draft is for.")]
    candidate: Annotated[int, Field(ge=1, description="Which of the round's candidates.")] = 1
    mode: Annotated[DraftOrigin, Field(description="A first attempt, a revision, or a fresh try.")]
    rules: Annotated[list[str], Field(description="Lessons recalled from memory.")] = Field(
        default_factory=list
    )
    history: Annotated[
        list[RevisionStep],
        Field(
            description="For a revision: the drafts it builds on; the last is the one to revise."
        ),
    ] = Field(default_factory=list)
    warning: Annotated[
        str, Field(description="For a return to an earlier, better draft: what went wrong since.")
    ] = ""
    earlier_failures: Annotated[
        str,
        Field(description="For a fresh sample: what earlier attempts failed (never their text)."),
    ] = ""
    temperature: Annotated[
        float, Field(ge=0.0, le=2.0, description="The worker's sampling temperature.")
    ]
    allowance: Annotated[
        Allowance, Field(description="What the run's budgets leave this turn (unset: unbounded).")
    ] = Field(default_factory=Allowance)

    @property
    def revises(self) -> DraftRef | None:
        return self.history[-1].ref if self.mode == "revision" and self.history else None


class CriticView(BaseModel):
    """The critique node's input: never the task or the worker's conversation."""

    rubric: KeptRubric
    drafts: list[Draft] = Field(default_factory=list)
    critiques: list[Critique] = Field(default_factory=list)
