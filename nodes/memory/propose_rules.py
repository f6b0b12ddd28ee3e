"""Distillation, step 1: find what a finished run shows, and ask a model to generalise it.

The lessons are found by code (`lessons`): checks that failed, then passed after a hint.
A run with none teaches nothing, and the distiller is not called. Otherwise the distiller
sees the task, the lessons and the scope's rules that fit the task, and answers in a
strict JSON schema with one operation per lesson: add it as a general rule, or update the
existing rule it refines. It never sees the drafts or the rubric, so it cannot paste
them. A distiller that fails (model or store errors, unusable answers) is recorded in
`memory_errors`, and the lessons are still consolidated as they are; the run's own result
is untouched.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from critic_loop.nodes.memory.lessons import observed_lessons
from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.recall import relevant_rules
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.structured import ask_until_valid, parse_answer, structured_model
from critic_loop.nodes.operator_policy import context_of
from critic_loop.nodes.prompts import render_prompt
from critic_loop.nodes.steps import Steps, StepsNode
from critic_loop.state.budget import BUDGET_WORDS, allowance, spent_on
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillState
from critic_loop.state.records import COMPLETED_OUTCOMES, Outcome
from critic_loop.state.rules import DistillerReport, Lesson, MemoryReport
from critic_loop.state.schema import portable_schema

logger = logging.getLogger(__name__)

DISTILL_ATTEMPTS = 2
"""Distiller calls allowed when its answer cannot be parsed."""

RULES_SHOWN = 10
"""The most existing rules the distiller sees (those recall would give this task)."""

NOTHING_TO_LEARN = "nothing to learn: no check failed in one round and passed in a later one"
"""Why a completed run with no lessons is not distilled."""


@functools.cache  # built once: see nodes/models/loading.py:_created for the figure
def distiller_output_schema() -> dict[str, Any]:
    """Return the JSON schema the distiller's answer is pinned to."""
    return portable_schema(DistillerReport, "Changes to a list of rules learned from a run.")


def skip_reason(
    outcome: Outcome | None,
    context: Context,
    store: BaseStore | None,
    lessons: Sequence[Lesson],
) -> str | None:
    """Say why a run that ended with `outcome` and showed `lessons` is not distilled, or None."""
    if not context.distills:
        return "distillation is turned off for this run"
    if store is None:
        return "no store is configured"
    if outcome not in COMPLETED_OUTCOMES:
        return f"the run did not complete (outcome: {outcome})"
    if not lessons:
        return NOTHING_TO_LEARN
    return None


def distill_prompt(
    state: DistillState,
    lessons: Sequence[Lesson],
    existing: Mapping[str, str],
    context: Context,
    problem: str | None,
) -> list[BaseMessage]:
    """Build the distiller's prompt from the run's lessons and the rules that fit its task."""
    messages: list[BaseMessage] = [
        SystemMessage(render_prompt("distill_system.jinja", context.prompts_dir)),
        HumanMessage(
            render_prompt(
                "distill_run.jinja",
                context.prompts_dir,
                task=state.task,
                lessons=lessons,
                existing=existing,
            )
        ),
    ]
    if problem is not None:
        messages.append(
            HumanMessage(
                render_prompt("distill_retry.jinja", context.prompts_dir, problems=problem)
            )
        )
    return messages


def _failed(
    update: dict[str, Any], report: MemoryReport, error: str, ledger: Ledger
) -> dict[str, Any]:
    """Record a failure and what it spent; the lessons in `update` go on to consolidation."""
    report.calls, report.usage = ledger.calls, ledger.usage
    return {**update, "memory_report": report.model_dump(mode="json"), "memory_errors": [error]}


def propose_rules_steps(state: DistillState, runtime: Runtime[Context]) -> Steps[dict[str, Any]]:
    """Find the run's lessons and ask the distiller to generalise them; else say why not.

    Its calls count toward the run's budgets: with a budget used up it does not run, and
    the memory report records the calls and tokens it spent.
    """
    context = context_of(runtime)
    store = memory_store(runtime)
    lessons = observed_lessons(state.critiques, state.rubric)
    ledger = Ledger(allowance(spent_on(state.drafts, state.critiques), context))
    budget = ledger.out_of()
    reason = skip_reason(state.outcome, context, store, lessons)
    if reason is None and budget is not None:
        reason = f"the run's {BUDGET_WORDS[budget]} is spent"
    if reason is not None or store is None:
        report = MemoryReport(scope=context.memory_scope, skipped=reason)
        return {"memory_report": report.model_dump(mode="json")}
    report = MemoryReport(scope=context.memory_scope, lessons=[lesson.text for lesson in lessons])
    try:
        items = yield from relevant_rules(
            store,
            context.memory_scope,
            state.task,
            limit=RULES_SHOWN,
            floor=context.recall_min_relevance,
        )
    except Exception as error:  # the store is down: consolidating would fail as well
        logger.warning("reading rules to distill failed: %s", error, exc_info=True)
        return _failed({}, report, f"distill: {type(error).__name__}: {error}", ledger)
    existing = {
        item.key: item.value["text"] for item in items if isinstance(item.value.get("text"), str)
    }
    update: dict[str, Any] = {
        "lessons": [lesson.model_dump(mode="json") for lesson in lessons],
        "proposed": [],  # if the distiller fails, the lessons are kept as they are
    }
    try:
        distiller = structured_model(
            context.distiller_model,
            role="distiller",
            schema=distiller_output_schema(),
            method=context.distill_output_method,
            context=context,
        )
        attempts = yield from ask_until_valid(
            distiller,
            lambda problem: distill_prompt(state, lessons, existing, context, problem),
            lambda answer: parse_answer(answer, DistillerReport),
            DISTILL_ATTEMPTS,
            ledger=ledger,
        )
    except Exception as error:
        logger.warning("distillation failed: %s", error, exc_info=True)
        return _failed(update, report, f"distill: {type(error).__name__}: {error}", ledger)
    report.calls, report.usage = ledger.calls, ledger.usage
    if attempts.value is None:
        problem = attempts.stopped or attempts.rejected[-1]
        logger.warning("distillation gave no usable answer: %s", problem)
        return _failed(
            update,
            report,
            f"distill: no usable answer after {attempts.calls} call(s); last problem: {problem}",
            ledger,
        )
    update["proposed"] = [op.model_dump(mode="json") for op in attempts.value.operations]
    return {**update, "memory_report": report.model_dump(mode="json")}


propose_rules = StepsNode(propose_rules_steps)
"""The propose_rules node (sync and async)."""
