"""After a run completes, record in each rule it consulted how the run fared.

Usage statistics are what let a rule earn its place: `consulted`, how many of those runs
`passed`, and in how many rounds. Only completed runs count (passed, stalled, exhausted);
a verifier error says nothing about the worker. A store failure is recorded in
`memory_errors` and does not touch the run's outcome.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from critic_loop.nodes.memory.rule_store import get_rule, put_rule
from critic_loop.nodes.steps import Steps, dual_node
from critic_loop.state.context import Context
from critic_loop.state.records import COMPLETED_OUTCOMES, Critique, Outcome
from critic_loop.state.rules import RecalledRule, Rule

logger = logging.getLogger(__name__)


class UsageView(BaseModel):
    """The usage node's input: which rules were consulted and how the run ended."""

    outcome: Outcome | None = None
    recalled_rules: list[RecalledRule] = Field(default_factory=list)
    critiques: list[Critique] = Field(default_factory=list)


def record_rule_usage_steps(state: UsageView, runtime: Runtime[Context]) -> Steps[dict[str, Any]]:
    """Add this run to the usage statistics of every rule it consulted."""
    store = runtime.store
    if store is None or not state.recalled_rules or state.outcome not in COMPLETED_OUTCOMES:
        return {}
    passed = state.outcome == "passed"
    try:
        for recalled in state.recalled_rules:
            item = yield get_rule(store, recalled.scope, recalled.id)
            if item is None:  # retired since it was recalled
                continue
            rule = Rule.model_validate(item.value)
            usage = rule.usage.model_copy(
                update={
                    "consulted": rule.usage.consulted + 1,
                    "passed": rule.usage.passed + passed,
                    "rounds_when_passed": rule.usage.rounds_when_passed
                    + (len(state.critiques) if passed else 0),
                }
            )
            yield put_rule(store, recalled.id, rule.model_copy(update={"usage": usage}))
    except Exception as error:
        logger.warning("recording rule usage failed: %s", error, exc_info=True)
        return {"memory_errors": [f"usage: {type(error).__name__}: {error}"]}
    return {}


record_rule_usage = dual_node(record_rule_usage_steps)
"""The usage node (sync and async)."""
