"""Recall: before the first draft, load the rules of the run's scope for the worker.

At most `Context.recall_k` rules are recalled: the most similar to the task when the store
has a vector index (its search results then carry similarity scores), otherwise the most
useful (then most recently changed), read from the scope's ranking (`ranking`) rather
than by reading every rule. They go to the
worker only; the critic's view has no field for them, so its judgement stays independent
of the worker's lessons. A store that cannot be read does not stop the run: the failure is
recorded in `memory_errors` and the worker starts without rules.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import SearchItem
from pydantic import BaseModel, ValidationError

from critic_loop.nodes.events import recall_event
from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.ranking import strongest_rules
from critic_loop.nodes.memory.rule_store import search_rules
from critic_loop.nodes.operator_policy import context_of
from critic_loop.nodes.steps import Steps, StepsNode
from critic_loop.state.context import Context
from critic_loop.state.rubric import Task
from critic_loop.state.rules import RecalledRule, Rule

logger = logging.getLogger(__name__)


class RecallView(BaseModel):
    """The recall node's input: the task, which is the query."""

    task: Task


def _recalled(item: SearchItem, scope: str) -> RecalledRule | None:
    try:
        rule = Rule.model_validate(item.value)
    except ValidationError:
        logger.warning("ignoring malformed rule %s in scope %s", item.key, scope)
        return None
    return RecalledRule(id=item.key, text=rule.text, scope=scope)


def recall_steps(state: RecallView, runtime: Runtime[Context]) -> Steps[dict[str, Any]]:
    """Give the worker the scope's most relevant rules."""
    context = context_of(runtime)
    store = memory_store(runtime)
    if not context.recalls or store is None:
        return {"recalled_rules": []}
    scope = context.memory_scope
    try:
        items = yield search_rules(store, scope, query=state.task, limit=context.recall_k)
        indexed = any(item.score is not None for item in items)
        if not indexed and len(items) >= context.recall_k:  # maybe more: take the strongest
            items = yield from strongest_rules(store, scope, context.recall_k)
    except Exception as error:
        logger.warning("recall failed in scope %s: %s", scope, error, exc_info=True)
        return {"recalled_rules": [], "memory_errors": [f"recall: {type(error).__name__}: {error}"]}
    recalled = [rule for item in items if (rule := _recalled(item, scope)) is not None]
    recalled = recalled[: context.recall_k]
    runtime.stream_writer(recall_event(recalled, scope))
    return {"recalled_rules": [rule.model_dump(mode="json") for rule in recalled]}


recall = StepsNode(recall_steps)
"""The recall node (sync and async)."""
