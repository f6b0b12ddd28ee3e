"""Read and write rules in the LangGraph store."""

from __future__ import annotations

from typing import Any

from langgraph.store.base import BaseStore, Item, PutOp, SearchItem

from critic_loop.state.rules import Rule, rules_namespace


def search_rules(
    store: BaseStore, scope: str, *, query: str | None, limit: int
) -> list[SearchItem]:
    """Search `limit` rules of `scope`, by similarity to `query` when the store has an index."""
    return store.search(rules_namespace(scope), query=query, limit=limit)


def get_rule(store: BaseStore, scope: str, rule_id: str) -> Item | None:
    """Read one rule."""
    return store.get(rules_namespace(scope), rule_id)


def put_rule(store: BaseStore, rule_id: str, rule: Rule) -> None:
    """Write one rule (its text is what the store's index embeds)."""
    store.put(rules_namespace(rule.scope), rule_id, rule.model_dump(mode="json"))


def usage_marker_namespace(scope: str) -> tuple[str, ...]:
    """Return the namespace that records which runs were already counted in `scope`."""
    return (*rules_namespace(scope)[:-2], "usage_recorded", scope)


def write_all(store: BaseStore, writes: list[PutOp]) -> list[Any]:
    """Write several items in one batch (one transaction where the store has them)."""
    return store.batch(writes)


def delete_rule(store: BaseStore, scope: str, rule_id: str) -> None:
    """Remove one rule."""
    store.delete(rules_namespace(scope), rule_id)
