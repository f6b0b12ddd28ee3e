"""Schemas for what flows through critic-loop: input, state, records, verdicts, context."""

from state.context import MAX_ITERATIONS_LIMIT, Context, StructuredOutputMethod
from state.loop import CriticView, LoopInput, LoopState, WorkerView
from state.records import Critique, Draft, OpenItem, Outcome, TokenUsage, WorkerFeedback
from state.rubric import Criterion, Rubric, Task
from state.verdict import (
    CriterionResult,
    CriticReport,
    InvalidVerdict,
    Verdict,
    check_report,
    critic_output_schema,
)

__all__ = [
    "MAX_ITERATIONS_LIMIT",
    "Context",
    "CriterionResult",
    "Criterion",
    "CriticReport",
    "CriticView",
    "Critique",
    "Draft",
    "InvalidVerdict",
    "LoopInput",
    "LoopState",
    "OpenItem",
    "Outcome",
    "Rubric",
    "StructuredOutputMethod",
    "Task",
    "TokenUsage",
    "Verdict",
    "WorkerFeedback",
    "WorkerView",
    "check_report",
    "critic_output_schema",
]
