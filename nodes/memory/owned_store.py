"""The store as one user's run sees it: their own namespaces, and the scopes shared with all."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchOp,
)

from critic_loop.nodes.memory.scope_locks import register_scope_lock, scope_lock
from critic_loop.state.memory_owners import owner_prefix, shared_scope_of
from critic_loop.state.operator_settings import operator_settings


class OwnedStore(BaseStore):
    """A store whose namespaces lie under one owner's prefix, but for the shared scopes."""

    def __init__(self, store: BaseStore, prefix: tuple[str, ...], shared: frozenset[str]) -> None:
        self.store, self.prefix, self.shared = store, prefix, shared
        self.supports_ttl, self.ttl_config = store.supports_ttl, store.ttl_config

    def _inner(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        if shared_scope_of(namespace, self.shared) is not None:
            return namespace
        return (*self.prefix, *namespace)

    def _outer(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        if namespace[: len(self.prefix)] == self.prefix:
            return namespace[len(self.prefix) :]
        return namespace

    def _listing(self, op: ListNamespacesOp) -> ListNamespacesOp:
        conditions = [
            MatchCondition("prefix", self._inner(tuple(c.path))) if c.match_type == "prefix" else c
            for c in op.match_conditions or ()
        ]
        if not any(c.match_type == "prefix" for c in conditions):
            conditions.append(MatchCondition("prefix", self.prefix))
        depth = op.max_depth + len(self.prefix) if op.max_depth is not None else None
        return op._replace(match_conditions=tuple(conditions), max_depth=depth)

    def _op(self, op: Op) -> Op:
        if isinstance(op, GetOp | PutOp):
            return op._replace(namespace=self._inner(op.namespace))
        if isinstance(op, SearchOp):
            return op._replace(namespace_prefix=self._inner(op.namespace_prefix))
        if isinstance(op, ListNamespacesOp):
            return self._listing(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    def _item(self, item: Item) -> Item:  # a copy of the same class (a SearchItem keeps its score)
        moved = copy.copy(item)
        moved.namespace = self._outer(item.namespace)
        return moved

    def _result(self, op: Op, result: Result) -> Result:
        if isinstance(result, Item):
            return self._item(result)
        if isinstance(op, SearchOp) and isinstance(result, list):
            return [self._item(item) for item in result if isinstance(item, Item)]
        if isinstance(op, ListNamespacesOp) and isinstance(result, list):
            return [self._outer(tuple(path)) for path in result if isinstance(path, tuple)]
        return result

    def _results(self, ops: list[Op], results: Iterable[Result]) -> list[Result]:
        return [self._result(op, result) for op, result in zip(ops, results, strict=True)]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations on the wrapped store, under the owner's prefix."""
        ops = list(ops)
        return self._results(ops, self.store.batch([self._op(op) for op in ops]))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations on the wrapped store, under the owner's prefix."""
        ops = list(ops)
        return self._results(ops, await self.store.abatch([self._op(op) for op in ops]))


def run_owner(runtime: Runtime[Any]) -> str | None:
    """Return the authenticated user a served run belongs to, if any."""
    user = runtime.server_info.user if runtime.server_info is not None else None
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    identity = getattr(user, "identity", None)
    return identity if isinstance(identity, str) and identity else None


def memory_store(runtime: Runtime[Any], *, shared: bool = True) -> BaseStore | None:
    """Return the store the run's memory lives in: the user's own part of it, if any.

    `shared=False`: the shared scopes too are the user's own (`graded.graded_here`).
    """
    store = runtime.store
    owner = run_owner(runtime)
    if store is None or owner is None:
        return store
    scopes = frozenset(operator_settings().shared_memory_scopes if shared else ())
    owned = OwnedStore(store, owner_prefix(owner), scopes)
    register_scope_lock(owned, scope_lock(store))
    return owned


def in_shared_scope(store: BaseStore | None, scope: str) -> bool:
    """Say whether `scope` is, in `store`, a scope every user shares."""
    return isinstance(store, OwnedStore) and scope in store.shared
