"""Declare how the run ended and pick the artifact it returns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from critic_loop.nodes.events import finished_event
from critic_loop.nodes.loop.history_queries import best_critique, draft_of, with_overrides
from critic_loop.nodes.loop.stopping import Decision
from critic_loop.nodes.memory.lessons import observed_lessons
from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.propose_rules import skip_reason
from critic_loop.nodes.memory.record_usage import usage_to_record
from critic_loop.nodes.verifiers.statements import as_instruction
from critic_loop.state.budget import spent_on
from critic_loop.state.context import Context
from critic_loop.state.loop import LoopState
from critic_loop.state.records import Critique, OpenItem, rounds_done
from critic_loop.state.rubric import CriterionBase
from critic_loop.state.rules import MemoryReport
from critic_loop.state.verdict import CriterionResult


def open_items(critique: Critique | None, rubric: Sequence[CriterionBase]) -> list[OpenItem]:
    """List the criteria the chosen draft fails; every criterion if it was never graded."""
    if critique is None or critique.verdict is None:
        never = "Not graded: the verifier gave no acceptable verdict."
        return [
            OpenItem(criterion_id=c.id, text=c.describe(), evidence=never, hint="") for c in rubric
        ]
    criteria = {criterion.id: criterion for criterion in rubric}

    def item(result: CriterionResult) -> OpenItem:
        # a judged failure without the judge's hint says what to do, as the worker was told
        criterion = criteria[result.criterion_id]
        told = "" if criterion.deterministic else as_instruction(criterion.describe())
        hint = result.hint or told
        shown = result.model_dump(include={"criterion_id", "evidence"})
        return OpenItem(text=criterion.describe(), hint=hint, **shown)

    return [item(result) for result in critique.verdict.unmet]


def ending(
    state: LoopState, decision: Decision, chosen: Critique | None, thread_id: str | None
) -> dict[str, Any]:
    """Return the update that ends a run: how, and `chosen`'s draft (None: the last) as `final`."""
    draft = draft_of(state.drafts, chosen.ref) if chosen else state.drafts[-1]
    return {
        "outcome": decision.outcome,
        "outcome_reason": decision.reason,
        "exhausted_by": decision.exhausted_by,
        "final": draft.text,
        "final_round": draft.round,
        "open_items": [item.model_dump(mode="json") for item in open_items(chosen, state.rubric)],
        "thread_id": thread_id,
    }


def finalize(
    state: LoopState, runtime: Runtime[Context]
) -> Command[Literal["record_rule_usage", "__end__"]]:
    """End the run as the route decided (`ending`), with its best draft.

    The memory steps run only when they have work; else the run ends here, with their report.
    """
    context = runtime.context
    if state.ending is None:
        raise ValueError("finalize ends a run the route decided to end; this one was not")
    decision = Decision(**state.ending)  # type: ignore[arg-type]  # as route wrote it
    chosen = best_critique(with_overrides(state.critiques, state.reviews))
    thread_id = runtime.execution_info.thread_id if runtime.execution_info else None
    update = ending(state, decision, chosen, thread_id)
    store = memory_store(runtime)
    lessons = observed_lessons(state.critiques, state.rubric) if context.distills else []
    not_distilled = skip_reason(decision.outcome, context, store, lessons)
    rounds = rounds_done(state.critiques)
    spent = spent_on(state.drafts, state.critiques)
    runtime.stream_writer(finished_event(decision, rounds, not_distilled is None, spent))
    if not_distilled is None or usage_to_record(state.recalled_rules, decision.outcome, store):
        return Command(goto="record_rule_usage", update=update)
    report = MemoryReport(scope=context.memory_scope, skipped=not_distilled)
    update["memory_report"] = report.model_dump(mode="json")
    return Command(goto="__end__", update=update)  # langgraph.graph.END
