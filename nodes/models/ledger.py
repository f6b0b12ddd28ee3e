"""Hold a step's model calls to what the run's budgets leave it, checked before each call.

A step (a worker turn, a round's grading, distillation) is given an `Allowance`, derived
from the run's history (`critic_loop.state.budget`). Before each model call it asks its
`Ledger` to admit one more: the ledger counts the calls it admitted, the tokens they
reported (holding each call's prompt tokens while it is in flight) and the seconds since
the step began, and refuses a call once the calls, tokens or time are used up. Calls side
by side (a judge panel under async) share one ledger, so a round of many judges stops at
the budget, not a round later. The step records what
it spent in its history records, which is where the next step's allowance comes from.

A call already in flight finishes: the token budget can be passed by what the calls in
flight answer (each at most `worker_max_tokens` or `critic_max_tokens`, and the last
prompt admitted), and the time budget by one request (`request_timeout` bounds it).
"""

from __future__ import annotations

import threading
import time

from critic_loop.state.budget import BUDGET_WORDS, Allowance, Budget
from critic_loop.state.records import TokenUsage

UNBOUNDED = Allowance()
"""No budget at all (a run whose context sets none)."""


class Ledger:
    """What a step may still spend on model calls, and what it has spent."""

    def __init__(self, allowance: Allowance = UNBOUNDED) -> None:
        """Start counting now, against `allowance`."""
        self.allowance = allowance
        self.calls = 0
        self.usage = TokenUsage()
        self.reserved = 0
        """Prompt tokens of the calls in flight, held until they report their usage."""
        self.started = time.monotonic()
        self._lock = threading.Lock()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def out_of(self) -> Budget | None:
        """Return the budget this step has used up, or None while every one has some left.

        The prompts of the calls in flight count as spent, so calls side by side stop
        once their prompts alone fill the token budget.
        """
        left = self.allowance
        if left.calls is not None and self.calls >= left.calls:
            return "call_budget"
        used = self.usage.input_tokens + self.usage.output_tokens + self.reserved
        if left.tokens is not None and used >= left.tokens:
            return "token_budget"
        if left.seconds is not None and self.seconds >= left.seconds:
            return "time_budget_seconds"
        return None

    def admit(self, prompt_tokens: int = 0) -> str | None:
        """Count one more call (holding its prompt's tokens) and return None, or say why not.

        Every admitted call is `settle`d when it ends, answered or not.
        """
        with self._lock:
            budget = self.out_of()
            if budget is None:
                self.calls += 1
                self.reserved += prompt_tokens
                return None
        return f"the {BUDGET_WORDS[budget]} ran out"

    def settle(self, prompt_tokens: int = 0, usage: TokenUsage | None = None) -> None:
        """End an admitted call: release its prompt's tokens, add the tokens it reported."""
        with self._lock:
            self.reserved -= prompt_tokens
            if usage is not None:
                self.usage += usage
