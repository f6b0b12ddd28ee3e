"""The distillation subgraph's schemas: what it reads from a finished run, what it returns."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, model_validator

from critic_loop.state.history import append_only
from critic_loop.state.records import Critique, Draft, Outcome
from critic_loop.state.rubric import Rubric, Task
from critic_loop.state.rules import Lesson, MemoryReport, RuleOperation
from critic_loop.state.sizes import check_depth


class DistillInput(BaseModel):
    """A finished run, as distillation reads it."""

    task: Task
    rubric: Rubric
    drafts: list[Draft] = Field(default_factory=list, description="The run's drafts.")
    critiques: list[Critique] = Field(default_factory=list, description="The run's critiques.")
    outcome: Outcome | None = Field(default=None, description="How the run ended.")
    source_thread_id: str | None = Field(
        default=None, description="The thread the run came from (default: this thread)."
    )

    @model_validator(mode="before")
    @classmethod
    def _shallow(cls, data: Any) -> Any:
        return check_depth(data)


class DistillOutput(BaseModel):
    """What distillation reports back."""

    memory_report: MemoryReport | None = Field(
        default=None, description="What distillation did to the scope's rules."
    )
    memory_errors: Annotated[list[str], append_only()] = Field(
        default_factory=list, description="Distillation steps that failed."
    )


class DistillState(DistillInput, DistillOutput):
    """The subgraph's working state: the run, its lessons, the proposed changes, the report."""

    lessons: list[Lesson] = Field(
        default_factory=list,
        description="What the run showed: checks that failed, then passed after a hint.",
    )
    proposed: list[RuleOperation] | None = Field(
        default=None, description="The changes the distiller proposed; null until it answered."
    )
