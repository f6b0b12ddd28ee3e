"""The strongest rules of a scope, kept ranked so recall reads a handful, not the scope.

The ranking and its head are written in one batch under the scope's lock; a scope
without one (rules written by other means) is ranked once from a full read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from langgraph.store.base import BaseStore, GetOp, Item, PutOp

from critic_loop.nodes.memory.scope_locks import holding
from critic_loop.state.rules import RULES_NAMESPACE_PREFIX, rules_namespace

RANKING_KEY = "by_strength"
HEAD_KEY = "head"
HEAD = 64  # more than the most a recall asks for (recall_k + SLACK)
SLACK = 5  # extra ids read, in case rules were removed since the ranking was written
PAGE = 1000  # rules read per request when a whole scope must be read

Entry = tuple[str, float, str]  # a rule's id, usefulness, last change (ISO 8601)
_strongest_first = itemgetter(1, 2)


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
    return sorted(entries, key=_strongest_first, reverse=True)


def ranking_put(scope: str, entries: Sequence[Entry]) -> PutOp:
    """Return the write that stores `entries` as the ranking of `scope` (see `ranking_writes`)."""
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
    return [PutOp(ranking_namespace(scope), key, None) for key in (RANKING_KEY, HEAD_KEY)]


def with_updated(entries: Sequence[Entry], changed: Mapping[str, Mapping[str, Any]]) -> list[Entry]:
    """Return `entries` with the rules in `changed` (id -> new raw value) ranked anew."""
    kept = [entry for entry in entries if entry[0] not in changed]
    return sorted([*kept, *ranked(changed.items())], key=_strongest_first, reverse=True)


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
