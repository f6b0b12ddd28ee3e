"""Read and write rules in the LangGraph store, and rank them for recall.

Every operation is a `Call`, so the memory nodes that use them run with the store's sync
methods under `invoke` and its async ones under `ainvoke` (the dev server).
"""

from __future__ import annotations

from typing import Any

from langgraph.store.base import BaseStore, Item, PutOp, SearchItem

from critic_loop.nodes.steps import Call, call
from critic_loop.state.rules import Rule, rules_namespace


def search_rules(
    store: BaseStore, scope: str, *, query: str | None, limit: int
) -> Call[list[SearchItem]]:
    """Search `limit` rules of `scope`, by similarity to `query` when the store has an index."""
    return call(store.search, store.asearch, rules_namespace(scope), query=query, limit=limit)


def get_rule(store: BaseStore, scope: str, rule_id: str) -> Call[Item | None]:
    """Read one rule."""
    return call(store.get, store.aget, rules_namespace(scope), rule_id)


def get_item(store: BaseStore, namespace: tuple[str, ...], key: str) -> Call[Item | None]:
    """Read any item."""
    return call(store.get, store.aget, namespace, key)


def put_rule(store: BaseStore, rule_id: str, rule: Rule) -> Call[None]:
    """Write one rule (its text is what the store's index embeds)."""
    value: dict[str, Any] = rule.model_dump(mode="json")
    return call(store.put, store.aput, rules_namespace(rule.scope), rule_id, value)


def usage_marker_namespace(scope: str) -> tuple[str, ...]:
    """Return the namespace that records which runs were already counted in `scope`."""
    return (*rules_namespace(scope)[:-2], "usage_recorded", scope)


def write_all(store: BaseStore, writes: list[PutOp]) -> Call[list[Any]]:
    """Write several items in one batch (one transaction where the store has them)."""
    return call(store.batch, store.abatch, writes)


def delete_rule(store: BaseStore, scope: str, rule_id: str) -> Call[None]:
    """Remove one rule."""
    return call(store.delete, store.adelete, rules_namespace(scope), rule_id)
