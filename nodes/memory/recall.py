"""Recall: before the first draft, give the worker the rules of its scope that fit its task.

The pool is the most similar rules (with a vector index), else the most useful; only
those at least `recall_min_relevance` relevant reach the worker, never the critic.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, Item, SearchItem
from pydantic import BaseModel, ValidationError

from critic_loop.nodes.events import recall_event
from critic_loop.nodes.memory.graded import binding, seal
from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.ranking import HEAD, SLACK, strength, strongest_rules
from critic_loop.nodes.memory.relevance import relevance, topic_words
from critic_loop.state.context import Context
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.rubric import Task
from critic_loop.state.rules import RecalledRule, Rule, rules_namespace

logger = logging.getLogger(__name__)


class RecallView(BaseModel):
    """The recall node's input: the task, which is the query."""

    task: Task


POOL = HEAD - SLACK  # more than a scope keeps by default, no more than a ranking's head

# whether each store's searches came back scored (it has a vector index): one without is
# not searched again, its ranking's head is read at once
_scored_searches: weakref.WeakKeyDictionary[BaseStore, bool] = weakref.WeakKeyDictionary()


def _candidates(store: BaseStore, scope: str, task: str) -> list[Item]:
    if _scored_searches.get(store) is False:
        return strongest_rules(store, scope, POOL)
    items: list[Item] = list(store.search(rules_namespace(scope), query=task, limit=POOL))
    indexed = any(isinstance(item, SearchItem) and item.score is not None for item in items)
    if items:
        _scored_searches[store] = indexed
    if not indexed and len(items) >= POOL:  # maybe more: take the strongest
        items = strongest_rules(store, scope, POOL)
    return items


def relevant_rules(
    store: BaseStore, scope: str, task: str, *, limit: int, floor: float
) -> list[Item]:
    """Return up to `limit` rules at least `floor` relevant: most useful, relevant, recent first.

    A rule longer than `CRITIC_LOOP_MAX_RULE_CHARS` is never given (nor compared).
    """
    words, longest = topic_words(task), operator_settings().max_rule_chars
    items = [i for i in _candidates(store, scope, task) if len(str(i.value.get("text"))) <= longest]
    scored = [(item, relevance(words, item.value)) for item in items]
    kept = [(item, score) for item, score in scored if score >= floor]
    kept.sort(
        key=lambda pair: (strength(pair[0].value)[0], pair[1], strength(pair[0].value)[1]),
        reverse=True,
    )
    return [item for item, _ in kept[:limit]]


def _recalled(items: list[Item], scope: str, bound: str | None) -> list[RecalledRule]:
    # at most `CRITIC_LOOP_MAX_RECALLED_CHARS` of rule text, sealed in a run that shares memory
    recalled, room = [], operator_settings().max_recalled_chars
    for item in items:
        try:
            rule = RecalledRule(id=item.key, text=Rule.model_validate(item.value).text, scope=scope)
        except ValidationError:
            logger.warning("ignoring malformed rule %s in scope %s", item.key, scope)
            continue
        if len(rule.text) <= room:
            room -= len(rule.text)
            rule.seal = seal(bound, rule) if bound else None
            recalled.append(rule)
    return recalled


def recall(state: RecallView, runtime: Runtime[Context]) -> dict[str, Any]:
    """Give the worker the scope's most relevant rules."""
    context = runtime.context
    store = memory_store(runtime)
    if not context.recalls or store is None:
        return {"recalled_rules": []}
    scope = context.memory_scope
    try:
        items = relevant_rules(
            store, scope, state.task, limit=context.recall_k, floor=context.recall_min_relevance
        )
    except Exception as error:
        logger.warning("recall failed in scope %s: %s", scope, error, exc_info=True)
        return {"recalled_rules": [], "memory_errors": [f"recall: {type(error).__name__}: {error}"]}
    recalled = _recalled(items, scope, binding(runtime))
    runtime.stream_writer(recall_event(recalled, scope))
    return {"recalled_rules": [rule.model_dump(mode="json") for rule in recalled]}
