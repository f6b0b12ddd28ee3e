"""Long-term memory: rules distilled from finished runs, and what distillation did."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from critic_loop.state.records import Outcome, TokenUsage

RULES_NAMESPACE_PREFIX = ("critic_loop", "rules")
MAX_RULE_WORDS = 40  # longer texts are logs or summaries, not rules
MAX_TOPICS = 5  # the latest task topics a rule keeps


def rules_namespace(scope: str) -> tuple[str, ...]:
    """Return the store namespace holding the rules of `scope`."""
    return (*RULES_NAMESPACE_PREFIX, scope)


def utc_now() -> datetime:
    """Return the current time in UTC (rule timestamps are always UTC)."""
    return datetime.now(UTC)


class RuleUsage(BaseModel):
    """How the runs that consulted a rule fared."""

    consulted: int = Field(default=0, ge=0, description="Completed runs that were given it.")
    passed: int = Field(default=0, ge=0, description="Of those, the runs that passed.")
    rounds_when_passed: int = Field(
        default=0, ge=0, description="Total rounds the passing runs took (divide by `passed`)."
    )

    @property
    def usefulness(self) -> float:
        """Smoothed pass rate of the runs that consulted it; 0.5 for an untried rule."""
        return (self.passed + 1) / (self.consulted + 2)


class RuleProvenance(BaseModel):
    """The run a rule was learned (or last changed) from."""

    thread_id: str | None = Field(default=None, description="The run's thread.")
    outcome: Outcome = Field(description="How that run ended.")
    rounds: int = Field(ge=0, description="How many rounds it took.")


class Rule(BaseModel):
    """One remembered lesson, as stored."""

    text: str = Field(description="The rule: a short imperative sentence.")
    criteria: list[str] = Field(
        default_factory=list, description="Ids of the criteria the rule helps with."
    )
    scope: str = Field(description="The memory scope (domain) it belongs to.")
    topics: list[str] = Field(
        default_factory=list,
        description="The content words of the tasks that taught it, latest last (for recall).",
    )
    provenance: RuleProvenance = Field(description="The run that first taught it.")
    last_changed_by: RuleProvenance | None = Field(
        default=None, description="The run that last updated or reinforced it."
    )
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    usage: RuleUsage = Field(default_factory=RuleUsage)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def about(self) -> str:
        """The text and the topics in one string: one vector per rule for a store's index."""
        return " | ".join([self.text, *self.topics])


class RecalledRule(BaseModel):
    """A rule a run consulted: given to the worker before its first draft."""

    id: str = Field(description="The rule's key in the store.")
    text: str = Field(description="The rule as it read when recalled.")
    scope: str = Field(description="The scope it was recalled from.")
    seal: str | None = Field(
        default=None, description="The server's mark that its recall gave it (shared memory)."
    )


class Lesson(BaseModel):
    """What a finished run shows, found by code: a check failed, then passed after a hint."""

    criterion_id: str = Field(description="The criterion that failed and then passed.")
    text: str = Field(description="The hint after which it passed.")


class RuleOperation(BaseModel):
    """One change the distiller proposes to the rules of a scope: a lesson, generalised."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["add", "update"] = Field(
        description="add a new rule, or update (rewrite) an existing one."
    )
    rule_id: str = Field(description="The existing rule's id for update; empty for add.")
    text: str = Field(description="The rule: one short imperative sentence.")
    criteria: list[str] = Field(description="Ids of the checks the rule helps with.")
    reason: str = Field(description="Why, in one short sentence.")


class DistillerReport(BaseModel):
    """The structured answer the distillation model must give."""

    model_config = ConfigDict(extra="forbid", title="rule_operations")

    operations: list[RuleOperation] = Field(
        description="One rule per lesson, generalised; empty to keep the lessons as they are."
    )


class MemoryReport(BaseModel):
    """What distillation did to the rules of a scope after a run."""

    scope: str = Field(description="The scope written to.")
    added: list[str] = Field(default_factory=list, description="Ids of new rules.")
    updated: list[str] = Field(default_factory=list, description="Ids of rules rewritten.")
    reinforced: list[str] = Field(
        default_factory=list, description="Ids of rules a duplicate lesson was merged into."
    )
    deleted: list[str] = Field(default_factory=list, description="Ids of rules removed.")
    retired: list[str] = Field(
        default_factory=list, description="Ids of the weakest rules removed to stay in bounds."
    )
    rejected: list[str] = Field(
        default_factory=list, description="Proposed operations that were refused, and why."
    )
    lessons: list[str] = Field(
        default_factory=list, description="Hints after which a failing check passed."
    )
    skipped: str | None = Field(default=None, description="Why distillation did not run.")
    calls: int = Field(default=0, ge=0, description="Distiller calls made.")
    usage: TokenUsage = Field(default_factory=TokenUsage, description="Distiller tokens spent.")
