"""Run budgets: what a run has spent, read from its history, and what it has left."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, get_args

from pydantic import BaseModel, ConfigDict, Field

from critic_loop.state.context import Context
from critic_loop.state.records import Critique, Draft, TokenUsage
from critic_loop.state.rules import MemoryReport

Budget = Literal["call_budget", "token_budget", "time_budget_seconds"]  # `Context` fields

BUDGET_WORDS: dict[Budget, str] = {
    b: b.removesuffix("_seconds").replace("_", " ") for b in get_args(Budget)
}


@dataclass(frozen=True)
class Spent:
    """What a run has spent so far."""

    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0


class Exhausted(NamedTuple):
    """A budget that ran out, and why, in words."""

    budget: Budget
    reason: str


def _tokens(usage: TokenUsage) -> int:
    return usage.input_tokens + usage.output_tokens


def round_seconds(drafts: Sequence[Draft], critiques: Sequence[Critique]) -> dict[int, float]:
    """Return each round's seconds: its slowest draft plus its slowest critique (side by side)."""
    drafting: dict[int, float] = {}
    grading: dict[int, float] = {}
    for draft in drafts:
        drafting[draft.round] = max(drafting.get(draft.round, 0.0), draft.seconds)
    for critique in critiques:
        grading[critique.round] = max(grading.get(critique.round, 0.0), critique.seconds)
    rounds = sorted(set(drafting) | set(grading))
    return {n: drafting.get(n, 0.0) + grading.get(n, 0.0) for n in rounds}


def spent_on(
    drafts: Sequence[Draft], critiques: Sequence[Critique], memory: MemoryReport | None = None
) -> Spent:
    """Return what the run holding these records has spent (seconds: see `round_seconds`)."""
    calls = sum(d.attempts for d in drafts) + sum(c.attempts for c in critiques)
    tokens = sum(_tokens(d.usage) for d in drafts) + sum(_tokens(c.usage) for c in critiques)
    seconds = sum(round_seconds(drafts, critiques).values())
    if memory is not None:
        calls, tokens = calls + memory.calls, tokens + _tokens(memory.usage)
    return Spent(calls, tokens, seconds)


def exhausted(spent: Spent, context: Context) -> Exhausted | None:
    """Return the first budget `spent` has reached, or None while every one has some left."""
    uses: list[tuple[Budget, float, str]] = [
        ("call_budget", spent.calls, "model call(s)"),
        ("token_budget", spent.tokens, "token(s)"),
        ("time_budget_seconds", spent.seconds, "s"),
    ]
    for budget, used, unit in uses:
        limit = getattr(context, budget)
        if limit is not None and used >= limit:
            amount = f"{used:.1f} s of {limit:g} s" if unit == "s" else f"{used} {unit} of {limit}"
            return Exhausted(budget, f"the {BUDGET_WORDS[budget]} ran out: {amount}")
    return None


class Allowance(BaseModel):
    """What the run's budgets leave for a step (None: that budget is unbounded)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    calls: int | None = Field(default=None, ge=0, description="Model calls left.")
    tokens: int | None = Field(default=None, ge=0, description="Tokens left.")
    seconds: float | None = Field(default=None, ge=0, description="Seconds left.")
    largest_prompt: int | None = Field(
        default=None, ge=0, description="The most tokens one prompt may hold (the token budget)."
    )

    def share(self, ways: int) -> Allowance:
        """Split the calls left between `ways` steps side by side (each gets at least one)."""
        if self.calls is None:
            return self
        return self.model_copy(update={"calls": max(1, self.calls // max(1, ways))})


def allowance(spent: Spent, context: Context) -> Allowance:
    """Return what the budgets of `context` leave after `spent`."""

    def left(budget: float | None, used: float) -> float | None:
        return None if budget is None else max(0, budget - used)

    calls, tokens = left(context.call_budget, spent.calls), left(context.token_budget, spent.tokens)
    return Allowance(
        calls=None if calls is None else int(calls),
        tokens=None if tokens is None else int(tokens),
        seconds=left(context.time_budget_seconds, spent.seconds),
        largest_prompt=context.token_budget,
    )
