"""The strongest rules of a scope, kept ranked so recall reads a handful, not the scope.

Without a vector index, recall gives the worker the most useful rules (smoothed pass rate
of the runs that consulted them, then the most recently changed). Ranking a scope of
thousands of rules on every recall would read them all, so the ranking is kept in one
store item per scope, `("critic_loop", "ranking", scope) / "by_strength"`: every rule's
id with its usefulness and last change, strongest first. Beside it, written in the same
batch, its head (key `"head"`: the first `HEAD` entries) is all a recall reads, so recall
costs the same in a scope of ten rules or ten thousand.
Consolidation rewrites both from the rules it holds; usage recording updates the rules it
counted, in the same batch; both under the scope's lock. A scope without a ranking (rules
written by other means) is ranked once from a full read, and the ranking is stored for
the next recall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langgraph.store.base import BaseStore, GetOp, Item, PutOp

from critic_loop.nodes.memory.scope_locks import holding
from critic_loop.state.rules import RULES_NAMESPACE_PREFIX, rules_namespace

RANKING_KEY = "by_strength"
"""The key of a scope's ranking item."""

HEAD_KEY = "head"
"""The key of the item holding the ranking's first entries, beside it."""

HEAD = 64
"""Entries kept in a ranking's head: more than the most a recall asks for (recall_k + SLACK)."""

PAGE = 1000
"""Rules read per request when a whole scope must be read."""

Entry = tuple[str, float, str]
"""One ranked rule: its id, its usefulness, when it last changed (ISO 8601)."""


def ranking_namespace(scope: str) -> tuple[str, ...]:
    """Return the namespace holding the ranking of `scope`'s rules."""
    return (RULES_NAMESPACE_PREFIX[0], "ranking", scope)


def strength(value: Mapping[str, Any]) -> tuple[float, str]:
    """Rank a stored rule from its raw value: usefulness, then last change."""
    usage = value.get("usage") or {}
    consulted, passed = int(usage.get("consulted", 0)), int(usage.get("passed", 0))
    return (passed + 1) / (consulted + 2), str(value.get("updated_at", ""))


def ranked(rules: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Entry]:
    """Rank rules given as (id, raw value), strongest first."""
    entries = [(rule_id, *strength(value)) for rule_id, value in rules]
    return sorted(entries, key=lambda entry: (entry[1], entry[2]), reverse=True)


def ranking_put(scope: str, entries: Sequence[Entry]) -> PutOp:
    """Return the write that stores `entries` as the whole ranking of `scope` (not embedded).

    Write it with its head (`ranking_writes`); a ranking alone is read whole by recall.
    """
    value = {"rules": [list(entry) for entry in entries]}
    return PutOp(ranking_namespace(scope), RANKING_KEY, value, index=False)


def ranking_writes(scope: str, entries: Sequence[Entry]) -> list[PutOp]:
    """Return the writes that store `entries` as `scope`'s ranking and its head."""
    head = {"rules": [list(entry) for entry in entries[:HEAD]], "complete": len(entries) <= HEAD}
    return [
        ranking_put(scope, entries),
        PutOp(ranking_namespace(scope), HEAD_KEY, head, index=False),
    ]


def ranking_deletes(scope: str) -> list[PutOp]:
    """Return the writes that remove `scope`'s ranking and its head."""
    return [
        PutOp(ranking_namespace(scope), RANKING_KEY, None),
        PutOp(ranking_namespace(scope), HEAD_KEY, None),
    ]


def with_updated(entries: Sequence[Entry], changed: Mapping[str, Mapping[str, Any]]) -> list[Entry]:
    """Return `entries` with the rules in `changed` (id -> new raw value) ranked anew."""
    kept = [entry for entry in entries if entry[0] not in changed]
    return sorted(
        [*kept, *ranked(changed.items())], key=lambda entry: (entry[1], entry[2]), reverse=True
    )


def entries_of(item: Item | None) -> list[Entry] | None:
    """Read a ranking item; None if there is none (or it is unreadable)."""
    if item is None:
        return None
    try:
        return [(str(i), float(u), str(t)) for i, u, t in item.value["rules"]]
    except (KeyError, TypeError, ValueError):
        return None


def read_ranking(store: BaseStore, scope: str) -> Item | None:
    """Read the ranking item of `scope`."""
    return store.get(ranking_namespace(scope), RANKING_KEY)


def read_scope(store: BaseStore, scope: str) -> list[Item]:
    """Read every rule of `scope`, a page at a time."""
    items: list[Item] = []
    while True:
        page = store.search(rules_namespace(scope), limit=PAGE, offset=len(items))
        items.extend(page)
        if len(page) < PAGE:
            return items


SLACK = 5
"""Extra ranked ids read, in case some rules were removed since the ranking was written."""


def strongest_rules(store: BaseStore, scope: str, count: int) -> list[Item]:
    """Return up to `count` of `scope`'s strongest rules (see the module docstring)."""
    head_item = store.get(ranking_namespace(scope), HEAD_KEY)
    entries = entries_of(head_item)
    enough = entries is not None and (
        len(entries) >= count + SLACK or bool(head_item and head_item.value.get("complete"))
    )
    if not enough:  # no head (a ranking written by other means), or a head too short
        entries = entries_of(read_ranking(store, scope))
    if entries is None:
        with holding(store, scope):
            items = read_scope(store, scope)
            entries = ranked((item.key, item.value) for item in items)
            store.batch(ranking_writes(scope, entries))
        by_id = {item.key: item for item in items}
        return [by_id[rule_id] for rule_id, _, _ in entries[:count]]
    ids = [rule_id for rule_id, _, _ in entries[: count + SLACK]]
    found = store.batch([GetOp(rules_namespace(scope), rule_id) for rule_id in ids])
    return [item for item in found if isinstance(item, Item)][:count]
