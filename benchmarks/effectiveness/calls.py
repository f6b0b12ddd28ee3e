"""Count every model call a run makes, the same way for every configuration.

A LangChain callback handler, installed for everything that runs inside `counting()`
(LangChain's `register_configure_hook`, so the loop's own code passes nothing on), sees
each chat model request as it starts and its token usage as it ends. So the count covers
the worker's drafts and its repeated requests after a malformed reply, every judge call
(panels, samples, retries after an unusable answer) and the distiller's, whatever the
configuration; a request the HTTP client repeats by itself (a 5xx, a timeout) is one call.
Calls are split by the role tag critic-loop puts on its models (`critic_loop:worker`, ...).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult
from langchain_core.tracers.context import register_configure_hook

ROLE_PREFIX = "critic_loop:"


@dataclass
class Tally:
    """Model calls and tokens, per role."""

    calls: Counter[str] = field(default_factory=Counter)
    input_tokens: int = 0
    output_tokens: int = 0
    unreported: int = 0
    """Calls whose reply carried no token usage."""

    @property
    def total_calls(self) -> int:
        """Every call, whatever its role."""
        return sum(self.calls.values())


class CallCounter(BaseCallbackHandler):
    """Counts chat model calls by role, and the tokens their replies report."""

    def __init__(self) -> None:
        """Start at zero."""
        self.tally = Tally()
        self._lock = threading.Lock()

    @staticmethod
    def _role(tags: list[str] | None) -> str:
        return next(
            (tag.removeprefix(ROLE_PREFIX) for tag in tags or [] if tag.startswith(ROLE_PREFIX)),
            "other",
        )

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Count a chat model request."""
        with self._lock:
            self.tally.calls[self._role(tags)] += 1

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Add the reply's token usage."""
        usage = None
        for generations in response.generations:
            for generation in generations:
                message = getattr(generation, "message", None)
                usage = getattr(message, "usage_metadata", None) or usage
        with self._lock:
            if not usage:
                self.tally.unreported += 1
                return
            self.tally.input_tokens += int(usage.get("input_tokens", 0))
            self.tally.output_tokens += int(usage.get("output_tokens", 0))


_counter: ContextVar[CallCounter | None] = ContextVar("effectiveness_call_counter", default=None)
register_configure_hook(_counter, inheritable=True)


@contextmanager
def counting() -> Iterator[CallCounter]:
    """Count the model calls made inside the block (threads and tasks it starts included)."""
    counter = CallCounter()
    token = _counter.set(counter)
    try:
        yield counter
    finally:
        _counter.reset(token)
