"""Distillation, step 2: store the run's lessons as rules of the scope, without duplicates.

The distiller's operations come first; every lesson none restated is stored as it is, so
a failed distiller loses nothing. All of it holds the scope's lock.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from pydantic import ValidationError

from critic_loop.nodes.memory.graded import graded_here
from critic_loop.nodes.memory.owned_store import in_shared_scope, memory_store
from critic_loop.nodes.memory.ranking import ranked, ranking_writes, read_scope
from critic_loop.nodes.memory.relevance import topic_of, with_topic
from critic_loop.nodes.memory.rule_text import (
    find_duplicate,
    invented_words,
    refusal,
    restates,
    says_what_to_do,
)
from critic_loop.nodes.memory.scope_locks import holding
from critic_loop.state.context import Context
from critic_loop.state.distill import DistillState
from critic_loop.state.operator_settings import operator_settings
from critic_loop.state.records import rounds_done
from critic_loop.state.rules import (
    MAX_TOPICS,
    Lesson,
    MemoryReport,
    Rule,
    RuleOperation,
    RuleProvenance,
    rules_namespace,
    utc_now,
)

logger = logging.getLogger(__name__)


@dataclass
class _Consolidation:
    """The scope's rules being changed, and the report of what changed."""

    store: BaseStore
    state: DistillState
    provenance: RuleProvenance
    report: MemoryReport
    rules: dict[str, Rule] = field(default_factory=dict)
    known_criteria: set[str] = field(default_factory=set)
    topic: str = ""

    def _texts(self) -> dict[str, str]:
        return {rule_id: rule.text for rule_id, rule in self.rules.items()}

    def _criteria(self, proposed: list[str]) -> list[str]:
        return [c for c in dict.fromkeys(proposed) if c in self.known_criteria]

    def _refused(self, action: str, text: str) -> bool:
        drafts = [draft.text for draft in self.state.drafts]
        problem = refusal(text, task=self.state.task, drafts=drafts, rubric=self.state.rubric)
        if problem is not None:
            self.report.rejected.append(f"{action} {text!r}: {problem}")
        return problem is not None

    def _write(self, rule_id: str, rule: Rule) -> None:
        self.rules[rule_id] = rule
        self.store.put(rules_namespace(rule.scope), rule_id, rule.model_dump(mode="json"))

    def _remove(self, rule_id: str) -> None:
        del self.rules[rule_id]
        self.store.delete(rules_namespace(self.report.scope), rule_id)

    def _changed(self, rule: Rule, **update: Any) -> Rule:
        topics = with_topic(rule.topics, self.topic, MAX_TOPICS)
        changes = {"topics": topics, "last_changed_by": self.provenance, "updated_at": utc_now()}
        return rule.model_copy(update={**changes, **update})

    def _reinforce(self, rule_id: str, criteria: list[str]) -> None:
        rule = self.rules[rule_id]
        criteria = self._criteria([*rule.criteria, *criteria])
        self._write(rule_id, self._changed(rule, criteria=criteria))
        self.report.reinforced.append(rule_id)

    def restated(self, operation: RuleOperation) -> list[Lesson]:
        """Return the lessons `operation` restates; refuse it if it restates none, or adds words."""
        lessons = [lesson for lesson in self.state.lessons if restates(operation.text, lesson.text)]
        problem = "it restates none of the run's lessons" if not lessons else None
        invented = invented_words(operation.text, [x.text for x in lessons], self.state.task)
        if lessons and invented:
            listed = ", ".join(repr(word) for word in invented[:3])
            problem = f"it brings in words of neither its lesson nor the task: {listed}"
        elif lessons and not any(says_what_to_do(operation.text, x.text) for x in lessons):
            problem = "it only repeats what the lesson quotes, without saying what to do"
        if problem is not None:
            self.report.rejected.append(f"{operation.action} {operation.text!r}: {problem}")
            return []
        return lessons

    def add(self, text: str, criteria: list[str], action: str = "add") -> bool:
        """Store a new rule, or merge it into the rule that already says it; False if refused."""
        if self._refused(action, text):
            return False
        duplicate = find_duplicate(text, self._texts())
        if duplicate is not None:
            self._reinforce(duplicate, criteria)
            return True
        rule_id = uuid4().hex
        rule = Rule(
            text=text.strip(),
            criteria=self._criteria(criteria),
            scope=self.report.scope,
            topics=[self.topic] if self.topic else [],
            provenance=self.provenance,
        )
        self._write(rule_id, rule)
        self.report.added.append(rule_id)
        return True

    def update(self, operation: RuleOperation, criteria: list[str]) -> bool:
        """Rewrite a rule; merge it into another rule if the new text duplicates that one."""
        if operation.rule_id not in self.rules:  # its text passed `apply`'s refusal already
            self.report.rejected.append(f"{operation.action}: no rule has id {operation.rule_id!r}")
            return False
        duplicate = find_duplicate(operation.text, self._texts(), exclude=operation.rule_id)
        if duplicate is not None:
            self._reinforce(duplicate, criteria)
            self._remove(operation.rule_id)
            self.report.deleted.append(operation.rule_id)
            return True
        rule = self.rules[operation.rule_id]
        criteria = self._criteria(criteria) or rule.criteria
        changed = self._changed(rule, text=operation.text.strip(), criteria=criteria)
        self._write(operation.rule_id, changed)
        self.report.updated.append(operation.rule_id)
        return True

    def apply(self, operation: RuleOperation) -> list[Lesson]:
        """Apply one of the distiller's operations; return the lessons it restated, if kept."""
        if self._refused(operation.action, operation.text):
            return []
        lessons = self.restated(operation)
        if not lessons:
            return []
        criteria = [*operation.criteria, *(lesson.criterion_id for lesson in lessons)]
        if operation.action == "update":
            kept = self.update(operation, criteria)
        else:
            kept = self.add(operation.text, criteria)
        return lessons if kept else []

    def retire_weakest(self, max_rules: int) -> None:
        ranked = sorted(
            self.rules.items(), key=lambda pair: (pair[1].usage.usefulness, pair[1].updated_at)
        )
        for rule_id, _ in ranked[: max(0, len(self.rules) - max_rules)]:
            self._remove(rule_id)
            self.report.retired.append(rule_id)


def _stored_rules(items: list[Any]) -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for item in items:
        try:
            rules[item.key] = Rule.model_validate(item.value)
        except ValidationError:
            logger.warning("ignoring malformed rule %s", item.key)
    return rules


def _consolidate(work: _Consolidation, max_rules: int) -> None:
    work.rules = _stored_rules(read_scope(work.store, work.report.scope))
    restated: list[Lesson] = []
    for operation in work.state.proposed or []:
        restated += work.apply(operation)
    for lesson in work.state.lessons:
        if lesson not in restated:
            work.add(lesson.text, [lesson.criterion_id], action="keep lesson")
    work.retire_weakest(max_rules)
    values = ((rule_id, rule.model_dump(mode="json")) for rule_id, rule in work.rules.items())
    work.store.batch(ranking_writes(work.report.scope, ranked(values)))


def consolidate_rules(state: DistillState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Store the run's lessons (as the distiller generalised them) and report what changed."""
    context, scope = runtime.context, runtime.context.memory_scope
    store = memory_store(runtime, shared=graded_here(runtime, state.critiques, state.outcome))
    if store is None or state.proposed is None or state.outcome is None:
        return {}
    shared = in_shared_scope(store, scope)  # the operator's size; no thread named
    thread_id = state.source_thread_id or (
        runtime.execution_info.thread_id if runtime.execution_info else None
    )
    rounds = rounds_done(state.critiques)
    run = RuleProvenance(
        thread_id=None if shared else thread_id, outcome=state.outcome, rounds=rounds
    )
    report = state.memory_report or MemoryReport(scope=scope)
    work = _Consolidation(
        store=store,
        state=state,
        provenance=run,
        report=report.model_copy(update={"scope": scope}, deep=True),
        known_criteria={criterion.id for criterion in state.rubric},
        topic=topic_of(state.task),
    )
    try:
        with holding(store, scope):
            most = operator_settings().ceilings.max_rules  # type: ignore[attr-defined]
            _consolidate(work, most if shared else context.max_rules)
    except Exception as error:
        logger.warning("writing rules failed: %s", error, exc_info=True)
        return {
            "memory_report": work.report.model_dump(mode="json"),
            "memory_errors": [f"distill: {type(error).__name__}: {error}"],
        }
    return {"memory_report": work.report.model_dump(mode="json")}
