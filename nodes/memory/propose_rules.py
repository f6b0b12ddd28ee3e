"""Distillation, step 1: ask a model what a finished run teaches, as rule operations.

The distiller sees the task, how each round was graded (failing criteria and the critic's
hints), the criteria, and the scope's existing rules; it answers in a strict JSON schema
with add / update / delete operations. It never sees the drafts, so it cannot paste them.
Failures (no store, model or store errors, unusable answers) are recorded in
`memory_errors`; the run's own result is untouched.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.ranking import strongest_rules
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.structured import ask_until_valid, parse_answer, structured_model
from critic_loop.nodes.operator_policy import context_of
from critic_loop.nodes.prompts import render_prompt
from critic_loop.nodes.steps import Steps, StepsNode
from critic_loop.state.budget import BUDGET_WORDS, allowance, spent_on
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillState
from critic_loop.state.records import COMPLETED_OUTCOMES, Outcome
from critic_loop.state.rules import DistillerReport, MemoryReport
from critic_loop.state.schema import portable_schema

logger = logging.getLogger(__name__)

DISTILL_ATTEMPTS = 2
"""Distiller calls allowed when its answer cannot be parsed."""

RULES_SHOWN = 20
"""The most existing rules the distiller sees (the strongest); duplicates are caught anyway."""


@functools.cache  # built once: see nodes/models/loading.py:_created for the figure
def distiller_output_schema() -> dict[str, Any]:
    """Return the JSON schema the distiller's answer is pinned to."""
    return portable_schema(DistillerReport, "Changes to a list of rules learned from a run.")


def skip_reason(outcome: Outcome | None, context: Context, store: BaseStore | None) -> str | None:
    """Say why a run that ended with `outcome` is not distilled, or None if it is."""
    if not context.distills:
        return "distillation is turned off for this run"
    if store is None:
        return "no store is configured"
    if outcome not in COMPLETED_OUTCOMES:
        return f"the run did not complete (outcome: {outcome})"
    return None


def distill_prompt(
    state: DistillState, existing: Mapping[str, str], context: Context, problem: str | None
) -> list[BaseMessage]:
    """Build the distiller's prompt from the run's grading history and the existing rules."""
    graded = [critique for critique in state.critiques if critique.verdict is not None]
    latest_hints: dict[str, str] = {}
    for critique in graded:
        for result in critique.verdict.failing if critique.verdict else []:
            if result.hint:
                latest_hints[result.criterion_id] = result.hint[:300]
    rounds = [
        {
            "round": critique.round,
            "failing": [r.criterion_id for r in critique.verdict.failing]
            if critique.verdict
            else [],
        }
        for critique in graded
    ]
    messages: list[BaseMessage] = [
        SystemMessage(render_prompt("distill_system.jinja", context.prompts_dir)),
        HumanMessage(
            render_prompt(
                "distill_run.jinja",
                context.prompts_dir,
                task=state.task,
                outcome=state.outcome,
                rounds=rounds,
                hints=latest_hints,
                rubric=state.rubric,
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


def _failed(context: Context, error: str, ledger: Ledger) -> dict[str, Any]:
    report = MemoryReport(
        scope=context.memory_scope,
        skipped="distillation failed (see memory_errors)",
        calls=ledger.calls,
        usage=ledger.usage,
    )
    return {"memory_report": report.model_dump(mode="json"), "memory_errors": [error]}


def propose_rules_steps(state: DistillState, runtime: Runtime[Context]) -> Steps[dict[str, Any]]:
    """Ask the distiller for rule operations; record a skip or a failure instead if need be.

    Its calls count toward the run's budgets: with a budget used up it does not run, and
    the memory report records the calls and tokens it spent.
    """
    context = context_of(runtime)
    store = memory_store(runtime)
    ledger = Ledger(allowance(spent_on(state.drafts, state.critiques), context))
    budget = ledger.out_of()
    reason = skip_reason(state.outcome, context, store)
    if reason is None and budget is not None:
        reason = f"the run's {BUDGET_WORDS[budget]} is spent"
    if reason is not None or store is None:
        report = MemoryReport(scope=context.memory_scope, skipped=reason)
        return {"memory_report": report.model_dump(mode="json")}
    try:
        items = yield from strongest_rules(store, context.memory_scope, RULES_SHOWN)
        existing = {
            item.key: item.value["text"]
            for item in items[:RULES_SHOWN]
            if isinstance(item.value.get("text"), str)
        }
        distiller = structured_model(
            context.distiller_model,
            role="distiller",
            schema=distiller_output_schema(),
            method=context.distill_output_method,
            context=context,
        )
        attempts = yield from ask_until_valid(
            distiller,
            lambda problem: distill_prompt(state, existing, context, problem),
            lambda answer: parse_answer(answer, DistillerReport),
            DISTILL_ATTEMPTS,
            ledger=ledger,
        )
    except Exception as error:
        logger.warning("distillation failed: %s", error, exc_info=True)
        return _failed(context, f"distill: {type(error).__name__}: {error}", ledger)
    if attempts.value is None:
        problem = attempts.stopped or attempts.rejected[-1]
        logger.warning("distillation gave no usable answer: %s", problem)
        return _failed(
            context,
            f"distill: no usable answer after {attempts.calls} call(s); last problem: {problem}",
            ledger,
        )
    spent = MemoryReport(scope=context.memory_scope, calls=ledger.calls, usage=ledger.usage)
    return {
        "proposed": [op.model_dump(mode="json") for op in attempts.value.operations],
        "memory_report": spent.model_dump(mode="json"),
    }


propose_rules = StepsNode(propose_rules_steps)
"""The propose_rules node (sync and async)."""
