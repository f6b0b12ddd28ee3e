"""Recall: before the first draft, give the worker the rules of its scope that fit its task.

Recall compares a pool of the scope's rules with the task: the `POOL` most similar to it
when the store has a vector index (its search results then carry similarity scores),
otherwise the whole scope if it is that small, else its `POOL` most useful rules, read
from the scope's ranking (`ranking`) rather than by reading every rule (once a store's
searches have shown it has no index, recall reads the ranking's head straight away). Of
those, only the rules at least `Context.recall_min_relevance` relevant to the task
(`relevance`: the words the task shares with what a rule was learned on) are kept, so a
lesson from one kind of task does not reach another, and the worker gets at most
`Context.recall_k` of them, the most useful first. They go to the worker only; the
critic's view has no field for them, so its judgement stays independent of the worker's
lessons. A store that cannot be read does not stop the run: the failure is recorded in
`memory_errors` and the worker starts without rules.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, Item, SearchItem
from pydantic import BaseModel, ValidationError

from critic_loop.nodes.events import recall_event
from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.ranking import HEAD, SLACK, strength, strongest_rules
from critic_loop.nodes.memory.relevance import relevance, topic_words
from critic_loop.nodes.memory.rule_store import search_rules
from critic_loop.state.context import Context
from critic_loop.state.rubric import Task
from critic_loop.state.rules import RecalledRule, Rule

logger = logging.getLogger(__name__)


class RecallView(BaseModel):
    """The recall node's input: the task, which is the query."""

    task: Task


POOL = HEAD - SLACK
"""Rules of a scope compared with the task at recall: more than a scope keeps by default
(`Context.max_rules`), and no more than the head of its ranking holds."""


_scored_searches: weakref.WeakKeyDictionary[BaseStore, bool] = weakref.WeakKeyDictionary()
"""Whether each store's similarity searches have come back scored (it has a vector index)."""


def candidate_rules(store: BaseStore, scope: str, task: str) -> list[Item]:
    """Return the rules of `scope` recall compares with `task` (see the module docstring).

    A store whose searches came back unscored before has no index: its ranking's head is
    read at once, without a search that would only say so again.
    """
    if _scored_searches.get(store) is False:
        return strongest_rules(store, scope, POOL)
    items: list[Item] = list(search_rules(store, scope, query=task, limit=POOL))
    indexed = any(isinstance(item, SearchItem) and item.score is not None for item in items)
    if items:
        _scored_searches[store] = indexed
    if not indexed and len(items) >= POOL:  # maybe more: take the strongest
        items = strongest_rules(store, scope, POOL)
    return items


def relevant_rules(
    store: BaseStore, scope: str, task: str, *, limit: int, floor: float
) -> list[Item]:
    """Return up to `limit` rules of `scope` at least `floor` relevant to `task`.

    The most useful come first, then the most relevant, then the most recently changed.
    """
    words = topic_words(task)
    scored = [(item, relevance(words, item.value)) for item in candidate_rules(store, scope, task)]
    kept = [(item, score) for item, score in scored if score >= floor]
    kept.sort(
        key=lambda pair: (strength(pair[0].value)[0], pair[1], strength(pair[0].value)[1]),
        reverse=True,
    )
    return [item for item, _ in kept[:limit]]


def _recalled(item: Item, scope: str) -> RecalledRule | None:
    try:
        rule = Rule.model_validate(item.value)
    except ValidationError:
        logger.warning("ignoring malformed rule %s in scope %s", item.key, scope)
        return None
    return RecalledRule(id=item.key, text=rule.text, scope=scope)


def recall(state: RecallView, runtime: Runtime[Context]) -> dict[str, Any]:
    """Give the worker the scope's most relevant rules."""
    context = runtime.context
    store = memory_store(runtime)
    if not context.recalls or store is None:
        return {"recalled_rules": []}
    scope = context.memory_scope
    try:
        items = relevant_rules(
            store,
            scope,
            state.task,
            limit=context.recall_k,
            floor=context.recall_min_relevance,
        )
    except Exception as error:
        logger.warning("recall failed in scope %s: %s", scope, error, exc_info=True)
        return {"recalled_rules": [], "memory_errors": [f"recall: {type(error).__name__}: {error}"]}
    recalled = [rule for item in items if (rule := _recalled(item, scope)) is not None]
    runtime.stream_writer(recall_event(recalled, scope))
    return {"recalled_rules": [rule.model_dump(mode="json") for rule in recalled]}
