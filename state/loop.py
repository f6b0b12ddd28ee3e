"""The refinement loop's state, its input, and the narrow views each node reads.

The history is append-only: `drafts`, `critiques`, `feedback` and the worker's `messages`
only ever grow, and the round number is derived from them (there is no counter that could
disagree with the history it counts).

Objective/rubric separation is structural. `WorkerView`, the generate node's input
schema, has no rubric field and no critiques: the worker reads its task, its own
transcript and the feedback addressed to it. `CriticView`, the critique node's input
schema, has no task and no messages: the critic reads the rubric and the drafts.
"""

from __future__ import annotations

import operator
from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, ConfigDict, Field

from critic_loop.state.records import Critique, Draft, OpenItem, Outcome, WorkerFeedback
from critic_loop.state.rubric import Rubric, Task
from critic_loop.state.rules import MemoryReport, RecalledRule


class LoopInput(BaseModel):
    """What a caller gives the loop."""

    model_config = ConfigDict(extra="forbid")

    task: Task
    rubric: Rubric


class LoopState(BaseModel):
    """Everything the loop knows; checkpointed after every step."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    task: Task
    rubric: Rubric
    messages: Annotated[list[AnyMessage], add_messages] = Field(
        default_factory=list,
        description="The worker's conversation: its prompts and its replies, in order.",
    )
    drafts: Annotated[list[Draft], operator.add] = Field(
        default_factory=list, description="Every draft, oldest first. Never cleared."
    )
    critiques: Annotated[list[Critique], operator.add] = Field(
        default_factory=list, description="One critique per draft, oldest first. Never cleared."
    )
    feedback: Annotated[list[WorkerFeedback], operator.add] = Field(
        default_factory=list,
        description="What the worker was told after each failed round. Never cleared.",
    )
    recalled_rules: list[RecalledRule] = Field(
        default_factory=list,
        description="The rules the worker was given before its first draft (memory recall).",
    )
    outcome: Outcome | None = Field(
        default=None, description="How the run ended; null while it is running."
    )
    outcome_reason: str | None = Field(
        default=None, description="Why the run ended as it did, in words."
    )
    final: str | None = Field(
        default=None,
        description="The artifact returned: the passing draft, or else the best-scoring one.",
    )
    final_round: int | None = Field(
        default=None, description="The round of the draft returned as `final`."
    )
    open_items: list[OpenItem] = Field(
        default_factory=list,
        description=(
            "The criteria `final` still fails: empty when every criterion passed; a passing "
            "draft may still miss should criteria."
        ),
    )
    memory_report: MemoryReport | None = Field(
        default=None, description="What distillation did to the scope's rules after the run."
    )
    memory_errors: Annotated[list[str], operator.add] = Field(
        default_factory=list,
        description="Memory steps that failed (recall, usage, distill); the run went on.",
    )

    @property
    def rounds(self) -> int:
        """The number of completed rounds (drafts that have been judged)."""
        return len(self.critiques)


class WorkerView(BaseModel):
    """The generate node's input: the task and the worker's own history, never the rubric."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    task: Task
    recalled_rules: list[RecalledRule] = Field(default_factory=list)
    messages: list[AnyMessage] = Field(default_factory=list)
    drafts: list[Draft] = Field(default_factory=list)
    feedback: list[WorkerFeedback] = Field(default_factory=list)


class CriticView(BaseModel):
    """The critique node's input: the rubric and the drafts, never the worker's conversation."""

    rubric: Rubric
    drafts: list[Draft] = Field(default_factory=list)
