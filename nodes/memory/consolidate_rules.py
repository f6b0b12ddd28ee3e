"""Distillation, step 2: apply the proposed operations to the scope's rules, without duplicates.

- add: refused if it copies the task, a draft or a criterion, or is too long; merged into
  an existing rule that says the same thing (normalized text), else stored as a new rule.
- update: rewrites an existing rule; if the new text duplicates another rule, the two
  are merged.
- delete: removes an existing rule.
Then, while the scope holds more than `Context.max_rules`, the weakest rule (lowest
smoothed pass rate of the runs that consulted it, then least recently changed) is retired.
Store failures are recorded in `memory_errors`.

All of it happens while holding the scope's lock (see `scope_locks`), against the rules
as they are then: a run distilling at the same time cannot add the same rule twice or
undo another's change. Operations on rules that another run removed are refused.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from uuid import uuid4

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from pydantic import ValidationError

from critic_loop.nodes.memory.owned_store import memory_store
from critic_loop.nodes.memory.ranking import ranked, ranking_writes, read_scope
from critic_loop.nodes.memory.rule_store import delete_rule, put_rule, write_all
from critic_loop.nodes.memory.rule_text import find_duplicate, refusal
from critic_loop.nodes.memory.scope_locks import locked
from critic_loop.nodes.operator_policy import context_of
from critic_loop.nodes.steps import Steps, StepsNode
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillState
from critic_loop.state.records import TokenUsage, rounds_done
from critic_loop.state.rules import MemoryReport, Rule, RuleOperation, RuleProvenance, utc_now

logger = logging.getLogger(__name__)


@dataclass
class Consolidation:
    """The scope's rules being changed, and the report of what changed."""

    store: BaseStore
    state: DistillState
    provenance: RuleProvenance
    rules: dict[str, Rule]
    report: MemoryReport
    known_criteria: set[str] = field(default_factory=set)

    def _texts(self) -> dict[str, str]:
        return {rule_id: rule.text for rule_id, rule in self.rules.items()}

    def _criteria(self, proposed: list[str]) -> list[str]:
        return [c for c in dict.fromkeys(proposed) if c in self.known_criteria]

    def _refused(self, operation: RuleOperation) -> bool:
        problem = refusal(
            operation.text,
            task=self.state.task,
            drafts=[draft.text for draft in self.state.drafts],
            rubric=self.state.rubric,
        )
        if problem is not None:
            self.report.rejected.append(f"{operation.action} {operation.text!r}: {problem}")
        return problem is not None

    def _unknown(self, operation: RuleOperation) -> bool:
        if operation.rule_id in self.rules:
            return False
        self.report.rejected.append(f"{operation.action}: no rule has id {operation.rule_id!r}")
        return True

    def _write(self, rule_id: str, rule: Rule) -> Steps[None]:
        self.rules[rule_id] = rule
        yield put_rule(self.store, rule_id, rule)

    def _remove(self, rule_id: str) -> Steps[None]:
        del self.rules[rule_id]
        yield delete_rule(self.store, self.report.scope, rule_id)

    def _reinforce(self, rule_id: str, operation: RuleOperation) -> Steps[None]:
        rule = self.rules[rule_id]
        merged = self._criteria([*rule.criteria, *operation.criteria])
        yield from self._write(
            rule_id,
            rule.model_copy(
                update={
                    "criteria": merged,
                    "updated_at": utc_now(),
                    "last_changed_by": self.provenance,
                }
            ),
        )
        self.report.reinforced.append(rule_id)

    def add(self, operation: RuleOperation) -> Steps[None]:
        """Store a new lesson, or merge it into the rule that already says it."""
        if self._refused(operation):
            return
        duplicate = find_duplicate(operation.text, self._texts())
        if duplicate is not None:
            yield from self._reinforce(duplicate, operation)
            return
        rule_id = uuid4().hex
        rule = Rule(
            text=operation.text.strip(),
            criteria=self._criteria(operation.criteria),
            scope=self.report.scope,
            provenance=self.provenance,
        )
        yield from self._write(rule_id, rule)
        self.report.added.append(rule_id)

    def update(self, operation: RuleOperation) -> Steps[None]:
        """Rewrite a rule; merge it into another rule if the new text duplicates that one."""
        if self._unknown(operation) or self._refused(operation):
            return
        duplicate = find_duplicate(operation.text, self._texts(), exclude=operation.rule_id)
        if duplicate is not None:
            yield from self._reinforce(duplicate, operation)
            yield from self._remove(operation.rule_id)
            self.report.deleted.append(operation.rule_id)
            return
        rule = self.rules[operation.rule_id]
        updated = rule.model_copy(
            update={
                "text": operation.text.strip(),
                "criteria": self._criteria(operation.criteria) or rule.criteria,
                "updated_at": utc_now(),
                "last_changed_by": self.provenance,
            }
        )
        yield from self._write(operation.rule_id, updated)
        self.report.updated.append(operation.rule_id)

    def delete(self, operation: RuleOperation) -> Steps[None]:
        """Remove a rule."""
        if self._unknown(operation):
            return
        yield from self._remove(operation.rule_id)
        self.report.deleted.append(operation.rule_id)

    def retire_weakest(self, max_rules: int) -> Steps[None]:
        """Remove the weakest rules until at most `max_rules` remain."""
        ranked = sorted(
            self.rules.items(), key=lambda pair: (pair[1].usage.usefulness, pair[1].updated_at)
        )
        for rule_id, _ in ranked[: max(0, len(self.rules) - max_rules)]:
            yield from self._remove(rule_id)
            self.report.retired.append(rule_id)


def _stored_rules(items: list[Any]) -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for item in items:
        try:
            rules[item.key] = Rule.model_validate(item.value)
        except ValidationError:
            logger.warning("ignoring malformed rule %s", item.key)
    return rules


def _consolidate(work: Consolidation, max_rules: int) -> Steps[None]:
    """Read the scope's rules afresh, apply the proposed operations, retire the weakest."""
    work.rules = _stored_rules((yield from read_scope(work.store, work.report.scope)))
    for operation in work.state.proposed or []:
        apply = {"add": work.add, "update": work.update, "delete": work.delete}
        yield from apply[operation.action](operation)
    yield from work.retire_weakest(max_rules)
    values = ((rule_id, rule.model_dump(mode="json")) for rule_id, rule in work.rules.items())
    yield write_all(work.store, ranking_writes(work.report.scope, ranked(values)))


def consolidate_rules_steps(
    state: DistillState, runtime: Runtime[Context]
) -> Steps[dict[str, Any]]:
    """Apply the proposed operations to the store and report what changed."""
    context = context_of(runtime)
    store = memory_store(runtime)
    if store is None or state.proposed is None or state.outcome is None:
        return {}
    thread_id = state.source_thread_id or (
        runtime.execution_info.thread_id if runtime.execution_info else None
    )
    work = Consolidation(
        store=store,
        state=state,
        provenance=RuleProvenance(
            thread_id=thread_id, outcome=state.outcome, rounds=rounds_done(state.critiques)
        ),
        rules={},
        report=MemoryReport(
            scope=context.memory_scope,
            calls=state.memory_report.calls if state.memory_report else 0,
            usage=state.memory_report.usage if state.memory_report else TokenUsage(),
        ),
        known_criteria={criterion.id for criterion in state.rubric},
    )
    try:
        yield locked(store, context.memory_scope, partial(_consolidate, work, context.max_rules))
    except Exception as error:
        logger.warning("writing rules failed: %s", error, exc_info=True)
        return {
            "memory_report": work.report.model_dump(mode="json"),
            "memory_errors": [f"distill: {type(error).__name__}: {error}"],
        }
    return {"memory_report": work.report.model_dump(mode="json")}


consolidate_rules = StepsNode(consolidate_rules_steps)
"""The consolidate_rules node (sync and async)."""
