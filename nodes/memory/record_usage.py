"""After a completed run, record in each rule it consulted how the run fared.

A marker per run, in the same batch as the counts, makes a retried step count nothing twice.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, PutOp
from pydantic import BaseModel, Field

from critic_loop.nodes.memory.graded import graded_here
from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.ranking import entries_of, ranking_writes, read_ranking, with_updated
from critic_loop.nodes.memory.scope_locks import holding
from critic_loop.state.context import Context
from critic_loop.state.records import COMPLETED_OUTCOMES, Critique, Outcome, rounds_done
from critic_loop.state.rules import RULES_NAMESPACE_PREFIX, RecalledRule, Rule, rules_namespace

logger = logging.getLogger(__name__)


class UsageView(BaseModel):
    """The usage node's input: which rules were consulted and how the run ended."""

    outcome: Outcome | None = None
    recalled_rules: list[RecalledRule] = Field(default_factory=list)
    critiques: list[Critique] = Field(default_factory=list)


def _count_run(store: BaseStore, scope: str, state: UsageView, run: str | None) -> None:
    """Add one run to the usage of its rules of `scope`, once per run, in one write."""
    rules = [rule for rule in state.recalled_rules if rule.scope == scope]
    passed, rounds = state.outcome == "passed", rounds_done(state.critiques)
    marker = (RULES_NAMESPACE_PREFIX[0], "usage_recorded", scope)
    run = hashlib.sha256(run.encode()).hexdigest() if run is not None else None  # names no thread
    if run is not None and store.get(marker, run) is not None:
        return  # this run was counted before a crash or retry
    writes = []
    changed: dict[str, dict[str, Any]] = {}
    for recalled in rules:
        item = store.get(rules_namespace(scope), recalled.id)
        if item is None:  # retired since it was recalled
            continue
        rule = Rule.model_validate(item.value)
        used = rule.usage
        counted = {"consulted": used.consulted + 1, "passed": used.passed + passed}
        counted["rounds_when_passed"] = used.rounds_when_passed + (rounds if passed else 0)
        usage = used.model_copy(update=counted)
        value = rule.model_copy(update={"usage": usage}).model_dump(mode="json")
        writes.append(PutOp(rules_namespace(scope), recalled.id, value))
        changed[recalled.id] = value
    entries = entries_of(read_ranking(store, scope))
    if entries is not None:  # else recall ranks the scope afresh when it needs to
        writes += ranking_writes(scope, with_updated(entries, changed))
    if run is not None:
        writes.append(PutOp(marker, run, {}, index=False))
    store.batch(writes)


def usage_to_record(
    recalled_rules: Sequence[RecalledRule], outcome: Outcome | None, store: BaseStore | None
) -> bool:
    """Tell whether a run that ended with `outcome` has rule usage to record."""
    return store is not None and bool(recalled_rules) and outcome in COMPLETED_OUTCOMES


def record_rule_usage(state: UsageView, runtime: Runtime[Context]) -> dict[str, Any]:
    """Add this run to the usage statistics of every rule it consulted (once per run)."""
    graded = graded_here(runtime, state.critiques, state.outcome, state.recalled_rules)
    store = memory_store(runtime, shared=graded)
    if store is None or not usage_to_record(state.recalled_rules, state.outcome, store):
        return {}
    run = runtime.execution_info.thread_id if runtime.execution_info else None
    try:
        for scope in sorted({rule.scope for rule in state.recalled_rules}):
            with holding(store, scope):
                _count_run(store, scope, state, run)
    except Exception as error:
        logger.warning("recording rule usage failed: %s", error, exc_info=True)
        return {"memory_errors": [f"usage: {type(error).__name__}: {error}"]}
    return {}
