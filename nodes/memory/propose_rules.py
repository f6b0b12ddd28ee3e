"""Distillation, step 1: find what a finished run shows, and ask a model to generalise it.

The distiller never sees the drafts or the rubric; when it fails, the lessons are still
consolidated as they are.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from critic_loop.nodes.memory.graded import graded_here
from critic_loop.nodes.memory.lessons import observed_lessons
from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.recall import relevant_rules
from critic_loop.nodes.models.gateway import (
    Answer,
    Request,
    aask,
    ask,
    parse_answer,
    portable_schema,
)
from critic_loop.nodes.models.ledger import Ledger
from critic_loop.nodes.models.loading import grading_model, model_server
from critic_loop.nodes.prompts import conversation
from critic_loop.state.budget import BUDGET_WORDS, allowance, spent_on
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillState
from critic_loop.state.records import COMPLETED_OUTCOMES, Outcome
from critic_loop.state.rules import DistillerReport, Lesson, MemoryReport

logger = logging.getLogger(__name__)

DISTILL_ATTEMPTS = 2  # distiller calls, when an answer cannot be parsed
RULES_SHOWN = 10  # the most existing rules the distiller sees (those recall would give)
NOTHING_TO_LEARN = "nothing to learn: no check failed in one round and passed in a later one"


@functools.cache  # built once per process: a schema is not cheap to build
def distiller_output_schema() -> dict[str, Any]:
    return portable_schema(DistillerReport, "Changes to a list of rules learned from a run.")


def skip_reason(
    outcome: Outcome | None, context: Context, store: BaseStore | None, lessons: Sequence[Lesson]
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


def _prompt(
    run: dict[str, Any], prompts_dir: str | None, problem: str | None = None
) -> list[BaseMessage]:
    again = None if problem is None else ("distill_retry.jinja", {"problems": problem})
    return conversation(prompts_dir, "distill_system.jinja", ("distill_run.jinja", run), again)


def _failed(
    update: dict[str, Any], report: MemoryReport, ledger: Ledger, error: Exception | str
) -> dict[str, Any]:
    """Record a failure and what it spent; the lessons in `update` go on to consolidation."""
    if isinstance(error, Exception):
        logger.warning("distillation failed: %s", error, exc_info=True)
        error = f"distill: {type(error).__name__}: {error}"
    report.calls, report.usage = ledger.calls, ledger.usage
    return {**update, "memory_report": report.model_dump(mode="json"), "memory_errors": [error]}


@dataclass
class _Distilling:
    """A run whose lessons the distiller is about to generalise, and what it spends."""

    request: Request[DistillerReport]
    ledger: Ledger
    report: MemoryReport
    update: dict[str, Any]

    def finished(self, answer: Answer[DistillerReport]) -> dict[str, Any]:
        if answer.value is None:
            problem = answer.stopped or answer.rejected[-1]
            logger.warning("distillation gave no usable answer: %s", problem)
            why = f"distill: no usable answer after {answer.calls} call(s); last problem: {problem}"
            return _failed(self.update, self.report, self.ledger, why)
        self.report.calls, self.report.usage = self.ledger.calls, self.ledger.usage
        proposed = [op.model_dump(mode="json") for op in answer.value.operations]
        report = self.report.model_dump(mode="json")
        return {**self.update, "proposed": proposed, "memory_report": report}


def _distilling(state: DistillState, runtime: Runtime[Context]) -> _Distilling | dict[str, Any]:
    # what to ask the distiller; the update itself when there is nothing to ask
    context, scope = runtime.context, runtime.context.memory_scope
    store = memory_store(runtime, shared=graded_here(runtime, state.critiques, state.outcome))
    lessons = observed_lessons(state.critiques, state.rubric)
    ledger = Ledger(allowance(spent_on(state.drafts, state.critiques), context))
    budget = ledger.out_of()
    reason = skip_reason(state.outcome, context, store, lessons)
    if reason is None and budget is not None:
        reason = f"the run's {BUDGET_WORDS[budget]} is spent"
    if reason is not None or store is None:
        report = MemoryReport(scope=scope, skipped=reason)
        return {"memory_report": report.model_dump(mode="json")}
    report = MemoryReport(scope=scope, lessons=[lesson.text for lesson in lessons])
    floor = context.recall_min_relevance
    try:
        items = relevant_rules(store, scope, state.task, limit=RULES_SHOWN, floor=floor)
    except Exception as error:  # the store is down: consolidating would fail as well
        logger.warning("reading rules to distill failed: %s", error, exc_info=True)
        return _failed({}, report, ledger, f"distill: {type(error).__name__}: {error}")
    existing = {i.key: i.value["text"] for i in items if isinstance(i.value.get("text"), str)}
    run = {"task": state.task, "lessons": lessons, "existing": existing}
    update: dict[str, Any] = {
        "lessons": [lesson.model_dump(mode="json") for lesson in lessons],
        "proposed": [],  # if the distiller fails, the lessons are kept as they are
    }
    spec = context.distiller_model
    try:
        model = grading_model(spec, "distiller", context)
    except Exception as error:
        return _failed(update, report, ledger, error)
    request: Request[DistillerReport] = Request(
        model=model,
        spec=spec,
        role="distiller",
        server=model_server(spec, context),
        prompt=_prompt(run, context.prompts_dir),
        read=lambda answer: parse_answer(answer, DistillerReport),
        retry=lambda prompt, answer, problem: _prompt(run, context.prompts_dir, problem),
        attempts=DISTILL_ATTEMPTS,
        schema=distiller_output_schema(),
        method=context.distill_output_method,
    )
    return _Distilling(request, ledger, report, update)


def propose_rules(state: DistillState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the distiller to generalise the run's lessons; else say why not."""
    plan = _distilling(state, runtime)
    if isinstance(plan, dict):
        return plan
    try:
        answer = ask(plan.request, plan.ledger)
    except Exception as error:
        return _failed(plan.update, plan.report, plan.ledger, error)
    return plan.finished(answer)


async def apropose_rules(state: DistillState, runtime: Runtime[Context]) -> dict[str, Any]:
    """`propose_rules`, awaiting the distiller (the store is read in a thread)."""
    plan = await asyncio.to_thread(_distilling, state, runtime)
    if isinstance(plan, dict):
        return plan
    try:
        answer = await aask(plan.request, plan.ledger)
    except Exception as error:
        return _failed(plan.update, plan.report, plan.ledger, error)
    return plan.finished(answer)
