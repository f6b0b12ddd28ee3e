"""Hold a step's model calls to what the run's budgets leave it, checked before each call.

A `Ledger` admits calls while calls, tokens (prompts in flight held) and seconds are left;
calls side by side share one, so a judge panel stops at the budget, not a round later.
"""

from __future__ import annotations

import threading
import time

from critic_loop.state.budget import BUDGET_WORDS, Allowance, Budget
from critic_loop.state.records import TokenUsage


class Ledger:
    """What a step may still spend on model calls, and what it has spent."""

    def __init__(self, allowance: Allowance | None = None) -> None:
        self.allowance = allowance or Allowance()  # None: no budget at all
        self.calls, self.usage = 0, TokenUsage()
        self.reserved = 0  # prompt tokens of the calls in flight, until they report usage
        self.started, self._lock = time.monotonic(), threading.Lock()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def out_of(self, prompt_tokens: int = 0) -> Budget | None:
        """Return the budget this step has used up (prompts in flight count), or None.

        `prompt_tokens`: a call about to be sent, whose prompt must fit the whole token budget.
        """
        left = self.allowance
        if left.calls is not None and self.calls >= left.calls:
            return "call_budget"
        used = self.usage.input_tokens + self.usage.output_tokens + self.reserved
        too_big = left.largest_prompt is not None and prompt_tokens > left.largest_prompt
        if too_big or (left.tokens is not None and used >= left.tokens):
            return "token_budget"
        if left.seconds is not None and self.seconds >= left.seconds:
            return "time_budget_seconds"
        return None

    def admit(self, prompt_tokens: int = 0) -> str | None:
        """Count one more call (holding its prompt's tokens) and return None, or say why not."""
        with self._lock:
            budget = self.out_of(prompt_tokens)
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
